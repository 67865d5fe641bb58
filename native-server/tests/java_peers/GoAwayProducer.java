// A producer that keeps sending, one message at a time, until it is stopped; for the GO_AWAY
// test (main.rs). The same source runs against RocketMQ 5.5.0 and 4.9.7 (the JDK's source
// launcher compiles it against the version's jars), so it uses only API both have.
//
// usage: GoAwayProducer NAMESRV_ADDRS TOPIC GROUP ASK_ROUTES
//   prints `SENT n OK` or `FAILED n <exception>` per message and, with ASK_ROUTES=true, before
//   each message `ROUTE n OK <brokers>` or `ROUTE n FAILED <exception>` from its own admin
//   client's route query (which goes to a NameServer of NAMESRV_ADDRS).

import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

public class GoAwayProducer {
    public static void main(String[] args) throws Exception {
        String namesrv = args[0];
        String topic = args[1];
        boolean askRoutes = Boolean.parseBoolean(args[3]);
        DefaultMQProducer producer = new DefaultMQProducer(args[2]);
        producer.setNamesrvAddr(namesrv);
        producer.setInstanceName(args[2] + "-producer");
        // Routes refreshed every second: the NameServer is asked while it shuts down.
        producer.setPollNameServerInterval(1000);
        producer.setSendMsgTimeout(10000);
        producer.start();
        DefaultMQAdminExt admin = null;
        if (askRoutes) {
            admin = new DefaultMQAdminExt();
            admin.setNamesrvAddr(namesrv);
            admin.setInstanceName(args[2] + "-admin");
            admin.start();
        }
        for (long n = 0; ; n++) {
            if (admin != null) {
                try {
                    var route = admin.examineTopicRouteInfo(topic);
                    System.out.println("ROUTE " + n + " OK " + route.getBrokerDatas().size());
                } catch (Exception e) {
                    System.out.println("ROUTE " + n + " FAILED " + e.toString().replace('\n', ' '));
                }
            }
            try {
                var result = producer.send(new Message(topic, ("goaway " + n).getBytes("UTF-8")));
                System.out.println("SENT " + n + " " + result.getSendStatus());
            } catch (Exception e) {
                System.out.println("FAILED " + n + " " + e.toString().replace('\n', ' '));
            }
            // Pacing: a steady trickle, not a load.
            Thread.sleep(100);
        }
    }
}
