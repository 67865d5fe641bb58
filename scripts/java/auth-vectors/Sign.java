// Signs request frames with the AclClientRPCHook of the RocketMQ version on the class path and
// writes one line per frame to the file named by its second argument: name, accessKey, secretKey (hex of UTF-8), frame (hex).
// Run by scripts/java/auth-vectors.sh; compiled against 4.9.x and 5.x jars alike (the header
// classes moved package between them, so they are found by name).
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.remoting.CommandCustomHeader;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.remoting.protocol.SerializeType;

public class Sign {
    static final String[] HEADER_PACKAGES = {
        "org.apache.rocketmq.remoting.protocol.header.namesrv.", // 5.x
        "org.apache.rocketmq.common.protocol.header.namesrv.",   // 4.9.x
    };

    // Not stdout: the 5.x jars' logback prints its start-up there.
    static PrintStream out;

    public static void main(String[] args) throws Exception {
        int version = Integer.parseInt(args[0]);
        out = new PrintStream(args[1], "UTF-8");
        for (SerializeType type : new SerializeType[] {SerializeType.JSON, SerializeType.ROCKETMQ}) {
            String t = type.name().toLowerCase();
            emit(t + "-route-query", type, version, "rocketmq2", "12345678", null,
                request(105, header("GetRouteInfoRequestHeader", "topic", "TopicTest")), null);
            emit(t + "-put-kv-non-ascii", type, version, "admin-ak", "s3cr\u00e9t-\u5bc6\u94a5", null,
                request(100, header("PutKVConfigRequestHeader",
                    "namespace", "\u547d\u540d\u7a7a\u95f4", "key", "\u043a\u043b\u044e\u0447", "value", "\u503c \u2713 caf\u00e9")), null);
            emit(t + "-put-kv-security-token", type, version, "sts-ak", "sts-secret", "token/\u4ee4\u724c==",
                request(100, header("PutKVConfigRequestHeader", "namespace", "ns", "key", "k", "value", "v")), null);
            byte[] body = new byte[300];
            for (int i = 0; i < body.length; i++) body[i] = (byte) (i * 7 + 3);
            emit(t + "-register-with-body", type, version, "broker-ak", "broker-sk", null,
                request(103, header("RegisterBrokerRequestHeader", "brokerName", "broker-a", "brokerAddr", "10.0.0.1:10911",
                    "clusterName", "DefaultCluster", "haServerAddr", "10.0.0.1:10912", "brokerId", "0", "compressed", "false",
                    "bodyCrc32", "0")), body);
            emit(t + "-register-with-body-and-token", type, version, "broker-ak", "broker-sk", "tok",
                request(103, header("RegisterBrokerRequestHeader", "brokerName", "\u30d6\u30ed\u30fc\u30ab\u30fc",
                    "brokerAddr", "10.0.0.2:10911", "clusterName", "DefaultCluster", "haServerAddr", "10.0.0.2:10912",
                    "brokerId", "1", "compressed", "true", "bodyCrc32", "7")), "{\"\u00e9\":\"\u00fc\"}".getBytes(StandardCharsets.UTF_8));
            // Keys outside the BMP and in U+E000..U+FFFF: Java's TreeMap orders them by UTF-16
            // code unit (U+1F600 before U+FF01), UTF-8 byte order the other way round.
            RemotingCommand odd = request(101, header("GetKVConfigRequestHeader", "namespace", "ns", "key", "k"));
            odd.addExtField("\uff01wide", "fullwidth \uff01");
            odd.addExtField("\ud83d\ude00smile", "emoji \ud83d\ude00 \ud834\udd1e");
            odd.addExtField("\ue000private", "private use \ue000");
            emit(t + "-non-bmp-keys", type, version, "rocketmq2", "12345678", null, odd, null);
            // An empty value: the ROCKETMQ form writes it with length 0, which Java's decoder
            // reads as null, and its verifier then signs the text "null".
            RemotingCommand empty = request(101, header("GetKVConfigRequestHeader", "namespace", "ns", "key", "k"));
            empty.addExtField("empty", "");
            emit(t + "-empty-value", type, version, "rocketmq2", "12345678", null, empty, null);
            // A 5.x client signs _UNIQUE_KEY_QUERY; a 5.5.0 verifier leaves it out only for
            // versions up to 399 (V4_9_3), whose clients added it after signing.
            RemotingCommand unique = request(101, header("GetKVConfigRequestHeader", "namespace", "ns", "key", "k"));
            unique.addExtField("_UNIQUE_KEY_QUERY", "true");
            emit(t + "-unique-key-signed", type, version, "rocketmq2", "12345678", null, unique, null);
            RemotingCommand old = request(101, header("GetKVConfigRequestHeader", "namespace", "ns", "key", "k"));
            old.setVersion(399);
            old.addExtField("_UNIQUE_KEY_QUERY", "true");
            emit(t + "-unique-key-signed-v399", type, 399, "rocketmq2", "12345678", null, old, null);
            RemotingCommand added = request(101, header("GetKVConfigRequestHeader", "namespace", "ns", "key", "k"));
            emit(t + "-unique-key-added-after-signing-v399", type, 399, "rocketmq2", "12345678", null, added, null,
                "_UNIQUE_KEY_QUERY", "true");
            RemotingCommand addedNew = request(101, header("GetKVConfigRequestHeader", "namespace", "ns", "key", "k"));
            emit(t + "-unique-key-added-after-signing-v400", type, 400, "rocketmq2", "12345678", null, addedNew, null,
                "_UNIQUE_KEY_QUERY", "true");
        }
        out.close();
    }

    static RemotingCommand request(int code, CommandCustomHeader header) {
        return RemotingCommand.createRequestCommand(code, header);
    }

    static CommandCustomHeader header(String simpleName, String... pairs) throws Exception {
        Class<?> cls = null;
        for (String pkg : HEADER_PACKAGES) {
            try {
                cls = Class.forName(pkg + simpleName);
                break;
            } catch (ClassNotFoundException e) {
                // the other version's package
            }
        }
        if (cls == null) throw new IllegalStateException("no header class " + simpleName);
        Object header = cls.getDeclaredConstructor().newInstance();
        for (int i = 0; i < pairs.length; i += 2) {
            Field f = cls.getDeclaredField(pairs[i]);
            f.setAccessible(true);
            Class<?> ft = f.getType();
            String v = pairs[i + 1];
            if (ft == String.class) f.set(header, v);
            else if (ft == Long.class || ft == long.class) f.set(header, Long.valueOf(v));
            else if (ft == Integer.class || ft == int.class) f.set(header, Integer.valueOf(v));
            else if (ft == Boolean.class || ft == boolean.class) f.set(header, Boolean.valueOf(v));
            else throw new IllegalStateException("field type " + ft);
        }
        return (CommandCustomHeader) header;
    }

    static void emit(String name, SerializeType type, int version, String ak, String sk, String token,
        RemotingCommand cmd, byte[] body, String... addedAfterSigning) {
        cmd.setSerializeTypeCurrentRPC(type);
        cmd.setVersion(version);
        cmd.setOpaque(name.hashCode());
        if (body != null) cmd.setBody(body);
        SessionCredentials credentials = token == null ? new SessionCredentials(ak, sk) : new SessionCredentials(ak, sk, token);
        new AclClientRPCHook(credentials).doBeforeRequest("127.0.0.1:9876", cmd);
        for (int i = 0; i < addedAfterSigning.length; i += 2) cmd.addExtField(addedAfterSigning[i], addedAfterSigning[i + 1]);
        ByteBuffer frame = cmd.encode();
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        out.println(name + "\t" + ak + "\t" + hex(sk.getBytes(StandardCharsets.UTF_8)) + "\t" + hex(bytes));
    }

    static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) sb.append(String.format("%02x", b & 0xff));
        return sb.toString();
    }
}
