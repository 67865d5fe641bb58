// The clients of scripts/interop/live-swap.sh: Apache RocketMQ's own producer and push consumer
// (rocketmq-client of the version on the class path; the same source fits 4.9.x and 5.x) sending
// and consuming through two NameServers while the script swaps them, and a route poller asking
// each NameServer for the topic's route every second with raw remoting requests.
//
//   javac -cp 'lib/*' -d classes LiveSwap.java
//   java -cp 'classes:lib/*' LiveSwap NAMESRV_A NAMESRV_B TOPIC GROUP RATE DRAIN_SECONDS BROKERS
//
// Waits until both NameServers list BROKERS broker addresses in TOPIC's route and the consumer
// holds a queue, prints READY, then, from the first `PHASE label` line on stdin, sends RATE
// messages a second (unique keys, the client's default timeout and retries) until it reads STOP.
// Each PHASE line names the phase that the figures after it belong to. After STOP it waits up to DRAIN_SECONDS for
// every successful send's key, then prints the summary table and a TOTALS line for the script.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.impl.consumer.ProcessQueue;
import org.apache.rocketmq.client.impl.producer.TopicPublishInfo;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyRemotingClient;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;

public class LiveSwap {
    /** GET_ROUTEINFO_BY_TOPIC. */
    static final int ROUTE = 105;
    /** One `"brokerAddrs":{...}` object of a route body; 4.9.x writes its keys unquoted. */
    static final Pattern ADDRS = Pattern.compile("\"brokerAddrs\"\\s*:\\s*\\{([^}]*)\\}");
    static final Pattern ADDR = Pattern.compile("\"?(\\d+)\"?\\s*:\\s*\"([^\"]+)\"");

    /** Figures of one phase (between two PHASE lines). */
    static final class Phase {
        final String label;
        final AtomicLong sends = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        volatile int fewestProducerQueues = Integer.MAX_VALUE;
        volatile int fewestConsumerQueues = Integer.MAX_VALUE;
        final List<String> stale = Collections.synchronizedList(new ArrayList<>());

        Phase(String label) {
            this.label = label;
        }
    }

    /** What one NameServer answered at the last poll: null when it did not answer. */
    static final class Poll {
        final String name;
        final String addr;
        volatile Set<String> brokers;
        /** When the current stale window opened (ms), or 0. */
        long staleSince;
        String staleLabel;
        long longestStaleMs;

        Poll(String name, String addr) {
            this.name = name;
            this.addr = addr;
        }
    }

    static final List<Phase> PHASES = Collections.synchronizedList(new ArrayList<>());
    static volatile Phase phase;

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable e) {
            // The client's threads would keep the JVM alive.
            e.printStackTrace();
            System.exit(2);
        }
    }

    static void run(String[] args) throws Exception {
        Poll a = new Poll("A", args[0]);
        Poll b = new Poll("B", args[1]);
        String topic = args[2];
        String group = args[3];
        int rate = Integer.parseInt(args[4]);
        int drainSeconds = Integer.parseInt(args[5]);
        int brokers = Integer.parseInt(args[6]);
        String runId = Long.toString(System.currentTimeMillis(), 36);

        phase = new Phase("start");
        PHASES.add(phase);

        NettyRemotingClient remoting = new NettyRemotingClient(new NettyClientConfig());
        remoting.start();
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(3);
        timers.scheduleAtFixedRate(() -> pollRoutes(remoting, topic, a, b), 0, 1, TimeUnit.SECONDS);
        // Both NameServers know both brokers before any client starts.
        while (!(hasAll(a, brokers) && hasAll(b, brokers))) {
            Thread.sleep(100); // poll: the route poller's next answer
        }
        System.out.println("ROUTES A=" + a.brokers + " B=" + b.brokers);

        Map<String, Integer> received = new ConcurrentHashMap<>();
        AtomicLong deliveries = new AtomicLong();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group + "-consumer");
        consumer.setNamesrvAddr(a.addr + ";" + b.addr);
        consumer.setInstanceName("live-swap-consumer");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            for (MessageExt m : messages) {
                deliveries.incrementAndGet();
                received.merge(m.getKeys(), 1, Integer::sum);
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();

        DefaultMQProducer producer = new DefaultMQProducer(group + "-producer");
        producer.setNamesrvAddr(a.addr + ";" + b.addr);
        producer.setInstanceName("live-swap-producer");
        producer.start();
        System.out.println("PRODUCER timeout_ms=" + producer.getSendMsgTimeout()
            + " retries=" + producer.getRetryTimesWhenSendFailed());

        while (consumerQueues(consumer, topic) == 0) {
            Thread.sleep(100); // poll: the consumer's first rebalance
        }

        Thread control = new Thread(LiveSwap::readControl, "control");
        control.setDaemon(true);
        control.start();

        Set<String> sent = ConcurrentHashMap.newKeySet();
        AtomicLong failedPrinted = new AtomicLong();
        // The first send fills the producer's route cache; sampling starts after it.
        boolean sampling = false;
        System.out.println("READY");
        firstPhase.await(); // sending starts with the script's first phase
        long start = System.nanoTime();
        long periodNanos = 1_000_000_000L / rate;
        for (long i = 0; !stopped; i++) {
            long due = start + i * periodNanos;
            long ahead = due - System.nanoTime();
            if (ahead > 0) {
                TimeUnit.NANOSECONDS.sleep(ahead); // pacing: RATE messages a second
            }
            Phase p = phase;
            String key = runId + "-" + i;
            Message message = new Message(topic, "live", key, key.getBytes(StandardCharsets.UTF_8));
            p.sends.incrementAndGet();
            String failure = null;
            try {
                SendResult result = producer.send(message);
                if (result.getSendStatus() == SendStatus.SEND_OK) {
                    sent.add(key);
                } else {
                    failure = result.getSendStatus().toString();
                }
            } catch (Exception e) {
                failure = e.toString();
            }
            if (failure != null) {
                p.failed.incrementAndGet();
                if (failedPrinted.incrementAndGet() <= 20) {
                    System.out.println("FAILED " + key + " in " + p.label + ": " + failure);
                }
            }
            if (!sampling) {
                sampling = true;
                timers.scheduleAtFixedRate(() -> sample(producer, consumer, topic), 0, 100, TimeUnit.MILLISECONDS);
            }
        }
        long sendSeconds = (System.nanoTime() - start) / 1_000_000_000L;

        long drainStart = System.nanoTime();
        long drainNanos = TimeUnit.SECONDS.toNanos(drainSeconds);
        while (!received.keySet().containsAll(sent) && System.nanoTime() - drainStart < drainNanos) {
            Thread.sleep(100); // poll: deliveries, within the drain window
        }
        long drainedMs = (System.nanoTime() - drainStart) / 1_000_000L;
        timers.shutdownNow();
        timers.awaitTermination(10, TimeUnit.SECONDS); // the stale windows are the poller's until it ends
        producer.shutdown();
        consumer.shutdown();
        remoting.shutdown();
        long end = System.currentTimeMillis();
        closeStale(a, end);
        closeStale(b, end);

        long sends = 0;
        long failed = 0;
        int fewest = Integer.MAX_VALUE;
        for (Phase p : PHASES) {
            sends += p.sends.get();
            failed += p.failed.get();
            if (p.sends.get() > 0) {
                fewest = Math.min(fewest, Math.min(p.fewestProducerQueues, p.fewestConsumerQueues));
            }
        }
        long lost = sent.stream().filter(k -> !received.containsKey(k)).count();
        long duplicates = deliveries.get() - received.size();
        long unexpected = received.keySet().stream().filter(k -> !sent.contains(k)).count();
        long longestStale = Math.max(a.longestStaleMs, b.longestStaleMs);

        System.out.println("SUMMARY");
        System.out.printf("%-14s %7s %7s %16s %16s  %s%n", "phase (A/B)", "sends", "failed",
            "fewest producer", "fewest consumer", "stale windows (NameServer: seconds)");
        for (Phase p : PHASES) {
            if (p.sends.get() == 0 && p.stale.isEmpty()) {
                continue;
            }
            System.out.printf("%-14s %7d %7d %16s %16s  %s%n", p.label, p.sends.get(), p.failed.get(),
                queues(p.fewestProducerQueues), queues(p.fewestConsumerQueues),
                p.stale.isEmpty() ? "-" : String.join(", ", p.stale));
        }
        System.out.printf("%-14s %7d %7d %16s %16s  longest %.1f s%n", "total", sends, failed,
            queues(PHASES.stream().mapToInt(p -> p.fewestProducerQueues).min().orElse(Integer.MAX_VALUE)),
            queues(PHASES.stream().mapToInt(p -> p.fewestConsumerQueues).min().orElse(Integer.MAX_VALUE)),
            longestStale / 1000.0);
        System.out.printf("sent OK %d in %d s; consumed %d of them, lost %d, duplicates %d, unexpected keys %d;"
                + " drained in %.1f s%n",
            sent.size(), sendSeconds, sent.size() - lost, lost, duplicates, unexpected, drainedMs / 1000.0);
        System.out.println("TOTALS sends=" + sends + " failed=" + failed + " lost=" + lost + " duplicates=" + duplicates
            + " fewest_queues=" + (fewest == Integer.MAX_VALUE ? 0 : fewest) + " longest_stale_ms=" + longestStale);
        System.exit(0);
    }

    /** Opened by the first PHASE line (or the end of stdin). */
    static final CountDownLatch firstPhase = new CountDownLatch(1);
    /** Set by STOP on stdin (or its end). */
    static volatile boolean stopped;

    /** Reads `PHASE label` and `STOP` lines from the script. */
    static void readControl() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("PHASE ")) {
                    Phase next = new Phase(line.substring(6).trim());
                    PHASES.add(next);
                    phase = next;
                    firstPhase.countDown();
                } else if (line.equals("STOP")) {
                    break;
                }
            }
        } catch (Exception e) {
            e.printStackTrace();
        }
        stopped = true;
        firstPhase.countDown();
    }

    static String queues(int n) {
        return n == Integer.MAX_VALUE ? "-" : Integer.toString(n);
    }

    static boolean hasAll(Poll p, int brokers) {
        Set<String> seen = p.brokers;
        return seen != null && seen.size() >= brokers;
    }

    /** The producer's cached publish queues and the consumer's assigned queues, now. */
    @SuppressWarnings("deprecation") // the client's internals: what it would send to
    static void sample(DefaultMQProducer producer, DefaultMQPushConsumer consumer, String topic) {
        TopicPublishInfo info = producer.getDefaultMQProducerImpl().getTopicPublishInfoTable().get(topic);
        int produced = info == null || info.getMessageQueueList() == null ? 0 : info.getMessageQueueList().size();
        int consumed = consumerQueues(consumer, topic);
        Phase p = phase;
        p.fewestProducerQueues = Math.min(p.fewestProducerQueues, produced);
        p.fewestConsumerQueues = Math.min(p.fewestConsumerQueues, consumed);
    }

    @SuppressWarnings("deprecation") // the client's internals: what it pulls from
    static int consumerQueues(DefaultMQPushConsumer consumer, String topic) {
        int n = 0;
        for (Map.Entry<MessageQueue, ProcessQueue> e
            : consumer.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().entrySet()) {
            if (e.getKey().getTopic().equals(topic) && !e.getValue().isDropped()) {
                n++;
            }
        }
        return n;
    }

    /** Asks both NameServers for the route, then updates each one's stale window. */
    static void pollRoutes(NettyRemotingClient remoting, String topic, Poll a, Poll b) {
        try {
            a.brokers = route(remoting, a.addr, topic);
            b.brokers = route(remoting, b.addr, topic);
            long now = System.currentTimeMillis();
            Phase p = phase;
            stale(a, b, now, p);
            stale(b, a, now, p);
        } catch (Throwable e) {
            e.printStackTrace();
        }
    }

    /** The broker addresses (`id=host:port`) in `topic`'s route, empty for none, null when down. */
    static Set<String> route(NettyRemotingClient remoting, String addr, String topic) {
        RemotingCommand request = RemotingCommand.createRequestCommand(ROUTE, null);
        request.addExtField("topic", topic);
        RemotingCommand response;
        try {
            response = remoting.invokeSync(addr, request, 1000);
        } catch (Exception e) {
            return null;
        }
        Set<String> brokers = new TreeSet<>();
        if (response.getCode() != 0 || response.getBody() == null) {
            return brokers;
        }
        Matcher objects = ADDRS.matcher(new String(response.getBody(), StandardCharsets.UTF_8));
        while (objects.find()) {
            Matcher entries = ADDR.matcher(objects.group(1));
            while (entries.find()) {
                brokers.add(entries.group(1) + "=" + entries.group(2));
            }
        }
        return brokers;
    }

    /** Opens or closes `self`'s stale window: it answers, `other` answers, and lacks one of its brokers. */
    static void stale(Poll self, Poll other, long now, Phase p) {
        Set<String> mine = self.brokers;
        Set<String> theirs = other.brokers;
        if (mine == null) {
            closeStale(self, now);
            return;
        }
        if (theirs == null) {
            return; // nothing to compare with
        }
        boolean lacks = !mine.containsAll(theirs);
        if (lacks && self.staleSince == 0) {
            self.staleSince = now;
            self.staleLabel = p.label;
            System.out.println("STALE " + self.name + " lacks " + diff(theirs, mine) + " (phase " + p.label + ")");
        } else if (!lacks) {
            closeStale(self, now);
        }
    }

    static void closeStale(Poll self, long now) {
        if (self.staleSince == 0) {
            return;
        }
        long ms = now - self.staleSince;
        self.longestStaleMs = Math.max(self.longestStaleMs, ms);
        String window = String.format("%s: %.1f", self.name, ms / 1000.0);
        System.out.println("STALE " + self.name + " closed after " + ms + " ms");
        synchronized (PHASES) {
            for (Phase p : PHASES) {
                if (p.label.equals(self.staleLabel)) {
                    p.stale.add(window);
                    break;
                }
            }
        }
        self.staleSince = 0;
    }

    static Set<String> diff(Set<String> from, Set<String> minus) {
        Set<String> out = new TreeSet<>(from);
        out.removeAll(minus);
        return out;
    }
}
