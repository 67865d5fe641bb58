// A Java producer and push consumer of Apache RocketMQ's own client (rocketmq-client, the
// version on the classpath) exchanging COUNT messages through the NameServer NAMESRV only. Run
// by the Java peers test in source-file mode (`java -cp 'lib/*' Exchange.java ...`), compiled
// against whichever client version it runs with: the same source fits 4.9.x and 5.x.
//
//   java -cp 'lib/*' Exchange.java NAMESRV TOPIC GROUP COUNT PREFIX [WAIT_SECONDS]
//
// WAIT_SECONDS (default 150) bounds the wait for the last bodies after the last send.
// Prints `SENT <body> <status> <broker>` per message sent, `RECEIVED <body>` per distinct body consumed,
// then `EXCHANGED <n> of <COUNT>`; the test reads the bodies, never the exit code alone.

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

public class Exchange {
    public static void main(String[] args) {
        try {
            exchange(args);
        } catch (Exception e) {
            // The client's threads would keep the JVM alive until the test kit's guard.
            e.printStackTrace();
            System.exit(2);
        }
    }

    static void exchange(String[] args) throws Exception {
        String namesrv = args[0];
        String topic = args[1];
        String group = args[2];
        int count = Integer.parseInt(args[3]);
        String prefix = args[4];
        long waitSeconds = args.length > 5 ? Long.parseLong(args[5]) : 150;

        Set<String> received = ConcurrentHashMap.newKeySet();
        CountDownLatch all = new CountDownLatch(count);
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group + "-consumer");
        consumer.setNamesrvAddr(namesrv);
        // A loaded machine answers slowly (a cold JVM reads its first replies slowly too):
        // generous timeouts for every request, the client's own retries.
        consumer.setMqClientApiTimeout(30000);
        consumer.setInstanceName(prefix + "-consumer");
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            for (MessageExt m : messages) {
                String body = new String(m.getBody(), StandardCharsets.UTF_8);
                if (body.startsWith(prefix) && received.add(body)) {
                    System.out.println("RECEIVED " + body);
                    all.countDown();
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();

        DefaultMQProducer producer = new DefaultMQProducer(group + "-producer");
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName(prefix + "-producer");
        producer.setMqClientApiTimeout(30000);
        producer.setSendMsgTimeout(30000);
        producer.start();
        for (int i = 0; i < count; i++) {
            String body = prefix + "-" + i;
            SendResult result = null;
            // A broker's flow control (SYSTEM_BUSY, code 2) stores nothing and the client does not
            // retry it: an application sends again.
            for (int attempt = 1; result == null; attempt++) {
                try {
                    result = producer.send(new Message(topic, body.getBytes(StandardCharsets.UTF_8)));
                } catch (MQBrokerException e) {
                    if (e.getResponseCode() != 2 || attempt == 10) {
                        throw e;
                    }
                    System.out.println("BUSY " + body + " " + e.getErrorMessage());
                    Thread.sleep(1000);
                }
            }
            System.out.println("SENT " + body + " " + result.getSendStatus() + " " + result.getMessageQueue().getBrokerName());
        }

        // A hang guard only, below the test kit's so that this still prints: the test fails on
        // a missing body, whatever this prints.
        boolean done = all.await(waitSeconds, TimeUnit.SECONDS);
        System.out.println("EXCHANGED " + received.size() + " of " + count);
        producer.shutdown();
        consumer.shutdown();
        System.exit(done ? 0 : 1);
    }
}
