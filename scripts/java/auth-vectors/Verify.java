// Reads Sign's lines (file: first argument after the signer's version), decodes each frame as a 5.5.0 server does, rebuilds the signed content
// with 5.5.0's DefaultAuthenticationContextBuilder and checks the signature with AclSigner, then
// writes the vector file (JSON, the last argument) with that verdict. Compiled against the 5.5.0 jars.
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.apache.rocketmq.acl.common.AclSigner;
import org.apache.rocketmq.auth.authentication.builder.DefaultAuthenticationContextBuilder;
import org.apache.rocketmq.auth.authentication.context.DefaultAuthenticationContext;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;

public class Verify {
    public static void main(String[] args) throws Exception {
        String signer = args[0];
        String javaRuntime = System.getProperty("java.version");
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        ChannelHandlerContext ctx = channel.pipeline().firstContext();
        DefaultAuthenticationContextBuilder builder = new DefaultAuthenticationContextBuilder();
        BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(args[1]), StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        out.append("{\n  \"signedBy\": \"Apache RocketMQ ").append(signer).append(" AclClientRPCHook\",\n");
        out.append("  \"verifiedBy\": \"Apache RocketMQ 5.5.0 DefaultAuthenticationContextBuilder + AclSigner\",\n");
        out.append("  \"javaRuntime\": \"").append(javaRuntime).append("\",\n");
        out.append("  \"generator\": \"scripts/java/auth-vectors.sh\",\n  \"vectors\": [\n");
        String line;
        boolean first = true;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t");
            String secret = new String(unhex(f[2]), StandardCharsets.UTF_8);
            byte[] frame = unhex(f[3]);
            // RemotingCommand.decode takes the frame without its length prefix.
            RemotingCommand cmd = RemotingCommand.decode(ByteBuffer.wrap(frame, 4, frame.length - 4).slice());
            DefaultAuthenticationContext context = builder.build(ctx, cmd);
            String expected = AclSigner.calSignature(context.getContent(), secret);
            boolean accepts = context.getSignature() != null && MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.UTF_8), context.getSignature().getBytes(StandardCharsets.UTF_8));
            if (!first) out.append(",\n");
            first = false;
            out.append("    {\"name\": \"").append(f[0]).append("\", \"accessKey\": \"").append(f[1])
                .append("\", \"secretKeyUtf8Hex\": \"").append(f[2])
                .append("\", \"signedContentUtf8Hex\": \"").append(hex(context.getContent()))
                .append("\", \"java550Accepts\": ").append(accepts)
                .append(",\n     \"frameHex\": \"").append(f[3]).append("\"}");
        }
        out.append("\n  ]\n}\n");
        // Not stdout: the 5.x jars' logback prints its start-up there.
        try (FileOutputStream file = new FileOutputStream(args[2])) {
            file.write(out.toString().getBytes(StandardCharsets.UTF_8));
        }
        channel.close();
    }

    static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return b;
    }

    static String hex(byte[] bytes) {
        StringBuilder sb = new StringBuilder();
        for (byte b : bytes) sb.append(String.format("%02x", b & 0xff));
        return sb.toString();
    }
}
