// A producer or a push consumer of Apache RocketMQ 5.5.0's own client for the failover test
// (main.rs), run in the JDK's source-file mode against the version's jars.
//
//   java -cp 'lib/*' Failover.java produce NAMESRV TOPIC GROUP
//     sends `failover-<n>` one at a time until stopped; prints `SENT <n> <status>` per send
//     answered (SEND_OK is the acknowledgement: with allAckInSyncStateSet=true every replica
//     of the sync-state set holds it) or `FAILED <n> <exception>`.
//   java -cp 'lib/*' Failover.java consume NAMESRV TOPIC GROUP
//     consumes the topic from its first offset until stopped; prints `RECEIVED <body>` per
//     distinct body.

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;

public class Failover {
    public static void main(String[] args) throws Exception {
        String namesrv = args[1];
        String topic = args[2];
        String group = args[3];
        if (args[0].equals("produce")) {
            produce(namesrv, topic, group);
        } else {
            consume(namesrv, topic, group);
        }
    }

    static void produce(String namesrv, String topic, String group) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer(group);
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName(group);
        // Routes asked every second (the default is 30 s): the new master is found soon after
        // the NameServer routes it, which keeps the test short.
        producer.setPollNameServerInterval(1000);
        producer.setSendMsgTimeout(10000);
        producer.start();
        for (long n = 0; ; n++) {
            try {
                var result = producer.send(new Message(topic, ("failover-" + n).getBytes(StandardCharsets.UTF_8)));
                System.out.println("SENT " + n + " " + result.getSendStatus());
            } catch (Exception e) {
                String why = e.getCause() == null ? e.toString() : e + " caused by " + e.getCause();
                System.out.println("FAILED " + n + " " + why.replace('\n', ' '));
            }
            // Pacing: a steady trickle, not a load.
            Thread.sleep(50);
        }
    }

    static void consume(String namesrv, String topic, String group) throws Exception {
        Set<String> received = ConcurrentHashMap.newKeySet();
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(group);
        consumer.setNamesrvAddr(namesrv);
        consumer.setInstanceName(group);
        consumer.setMqClientApiTimeout(30000);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            for (MessageExt m : messages) {
                String body = new String(m.getBody(), StandardCharsets.UTF_8);
                if (received.add(body)) {
                    System.out.println("RECEIVED " + body);
                }
            }
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        System.out.println("CONSUMING");
    }
}
