// A host of test_relay.sh: Java's java.net.http.HttpClient (HTTP/2 preferred, its default) posting N chat
// requests to URL with its own key sk-host, each answer printed as "STATUS VERSION BODY" on one line;
// MODE "stream": one request whose body is written raw as it came.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;

public class RelayClient {
    public static void main(String[] args) throws Exception {
        String url = args[0], mode = args[1];
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        String body = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        HttpRequest req = HttpRequest.newBuilder(URI.create(url))
            .header("Authorization", "Bearer sk-host").header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            if (mode.equals("stream")) {
                HttpResponse<java.io.InputStream> res = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
                try (java.io.InputStream in = res.body()) {
                    in.transferTo(System.out);
                }
                System.out.flush();
                return;
            }
            for (int i = 0; i < n; i++) {
                HttpResponse<byte[]> res = client.send(req, HttpResponse.BodyHandlers.ofByteArray());
                String v = res.version() == HttpClient.Version.HTTP_2 ? "HTTP/2" : "HTTP/1.1";
                System.out.println(res.statusCode() + " " + v + " " + new String(res.body(), StandardCharsets.UTF_8).trim());
            }
        } catch (Exception e) {
            System.out.println("error " + e);
            System.exit(1);
        }
    }
}
