// A Java 5.5.0 producer asking NameServers for a topic's route, for the TLS test (main.rs).
// TLS is the JVM's: -Dtls.enable=true and the other tls.* properties, as an operator sets them.
//
// usage: TlsRoutes TOPIC NAMESRV...
//   prints, for each NameServer in turn (a producer of its own each),
//   `ROUTE <addr> OK <brokerName>x<queues>...` or `ROUTE <addr> FAILED <exception>`, then `DONE`.

import java.util.List;
import java.util.TreeMap;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.MessageQueue;

public class TlsRoutes {
    public static void main(String[] args) throws Exception {
        String topic = args[0];
        for (int i = 1; i < args.length; i++) {
            String namesrv = args[i];
            DefaultMQProducer producer = new DefaultMQProducer("tls-routes-" + i);
            producer.setNamesrvAddr(namesrv);
            // A client instance of its own: instances are shared by name within a JVM.
            producer.setInstanceName("tls-routes-" + i);
            producer.start();
            try {
                List<MessageQueue> queues = producer.fetchPublishMessageQueues(topic);
                TreeMap<String, Integer> brokers = new TreeMap<>();
                for (MessageQueue queue : queues) {
                    brokers.merge(queue.getBrokerName(), 1, Integer::sum);
                }
                StringBuilder line = new StringBuilder("ROUTE " + namesrv + " OK");
                brokers.forEach((name, count) -> line.append(' ').append(name).append('x').append(count));
                System.out.println(line);
            } catch (Exception e) {
                Throwable cause = e;
                StringBuilder why = new StringBuilder(e.toString());
                while (cause.getCause() != null && cause.getCause() != cause) {
                    cause = cause.getCause();
                    why.append(" <- ").append(cause);
                }
                System.out.println("ROUTE " + namesrv + " FAILED " + why.toString().replace('\n', ' '));
            } finally {
                producer.shutdown();
            }
        }
        System.out.println("DONE");
        System.exit(0);
    }
}
