// mqadmin commands one after another in one JVM (testkit/src/java.rs, `mqadmin_batch`): a JVM
// start costs more CPU than most commands, and mqadmin's own main does nothing but call main0.
//
// usage: MqadminBatch ARGS... [@@next ARGS...]...
//   runs MQAdminStartup.main0(ARGS, null) for each command in turn, its System.out and
//   System.err caught in one buffer, and prints
//     @@mqadmin-batch begin N
//     <what the command printed>
//     @@mqadmin-batch end N returned|threw
//   A command that never prints its end line (the JVM exited inside it) is run again alone.

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.rocketmq.tools.command.MQAdminStartup;

public class MqadminBatch {
    public static void main(String[] args) {
        List<List<String>> commands = new ArrayList<>();
        commands.add(new ArrayList<>());
        for (String arg : args) {
            if (arg.equals("@@next")) {
                commands.add(new ArrayList<>());
            } else {
                commands.get(commands.size() - 1).add(arg);
            }
        }
        PrintStream out = System.out;
        PrintStream err = System.err;
        for (int n = 0; n < commands.size(); n++) {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            PrintStream caught = new PrintStream(buffer, true, StandardCharsets.UTF_8);
            System.setOut(caught);
            System.setErr(caught);
            String ending = "returned";
            try {
                // A null hook: main0 reads conf/tools.yml for one, as mqadmin's main does.
                MQAdminStartup.main0(commands.get(n).toArray(new String[0]), null);
            } catch (Throwable t) {
                // mqadmin's main would end with it (exit code 1).
                t.printStackTrace();
                ending = "threw";
            } finally {
                caught.flush();
                System.setOut(out);
                System.setErr(err);
            }
            String text = buffer.toString(StandardCharsets.UTF_8);
            out.println("@@mqadmin-batch begin " + n);
            out.print(text);
            if (!text.isEmpty() && !text.endsWith("\n")) {
                out.println();
            }
            out.println("@@mqadmin-batch end " + n + " " + ending);
            out.flush();
        }
        // Not waiting for the client threads each command left winding down (Netty's quiet
        // period is seconds): every command has printed all it had to.
        System.exit(0);
    }
}
