//! Shared by the HTTP console tests: a server with its console on 127.0.0.1:0, a plain
//! HTTP/1.1 client over a socket (every byte visible, no client library in between) and a
//! server-sent-events reader.

use std::io;
use std::net::SocketAddr;

use nameserver::ServerConfig;
use nameserver::http::{Console, HttpOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::support::{PATIENCE, TestServer, server_config};

/// A server with its HTTP console, running in this test's runtime.
pub(crate) struct ConsoleServer {
    pub(crate) tcp: SocketAddr,
    pub(crate) http: SocketAddr,
    pub(crate) config: ServerConfig,
    server: TestServer,
}

impl ConsoleServer {
    pub(crate) async fn start() -> Self {
        Self::start_with(HttpOptions::default(), |_| {}).await
    }

    pub(crate) async fn start_with(options: HttpOptions, tweak: impl FnOnce(&mut ServerConfig)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut config = server_config(dir.path());
        tweak(&mut config);
        let http_listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let http = http_listener.local_addr().unwrap();
        let console = Console { listener: http_listener, options };
        let server = TestServer::serve(dir, config.clone(), Some(console)).await;
        Self { tcp: server.addr, http, config, server }
    }

    pub(crate) async fn client(&self) -> crate::support::Client {
        crate::support::Client::connect(self.tcp).await
    }

    pub(crate) async fn get(&self, path: &str) -> Response {
        request(self.http, "GET", path, &[], b"").await
    }

    pub(crate) async fn get_json(&self, path: &str) -> serde_json::Value {
        let response = self.get(path).await;
        assert_eq!(response.status, 200, "GET {path}: {}", response.text());
        assert_eq!(response.header("content-type"), Some("application/json"), "GET {path}");
        serde_json::from_slice(&response.body).unwrap_or_else(|e| panic!("GET {path}: {e}: {}", response.text()))
    }

    pub(crate) async fn events(&self) -> EventReader {
        EventReader::open(self.http).await
    }

    /// Polls `path` until `check` accepts its JSON (the view follows the owner a moment later).
    pub(crate) async fn wait_json(&self, path: &str, check: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
        for _ in 0..2000 {
            let value = self.get_json(path).await;
            if check(&value) {
                return value;
            }
            tokio::task::yield_now().await;
        }
        panic!("GET {path} never matched; last: {}", self.get_json(path).await);
    }

    pub(crate) async fn stop(self) -> io::Result<()> {
        self.server.stop().await.0
    }
}

/// An HTTP response.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Response {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// One HTTP/1.1 request on a fresh connection (`Connection: close`), read to the end.
pub(crate) async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(request_head(addr, method, path, headers, body).as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut raw))
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no complete response"))
        .unwrap();
    parse_response(&raw, method == "HEAD")
}

/// [`request`] without a body, for tests that run no runtime (a blocking socket).
pub(crate) fn request_blocking(addr: SocketAddr, method: &str, path: &str) -> Response {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream.write_all(request_head(addr, method, path, &[], &[]).as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap_or_else(|error| panic!("{method} {path}: no complete response: {error}"));
    parse_response(&raw, method == "HEAD")
}

fn request_head(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> String {
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() || matches!(method, "POST" | "PUT" | "PATCH") {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    head
}

fn parse_response(raw: &[u8], head_only: bool) -> Response {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    let head = std::str::from_utf8(&raw[..end]).unwrap();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    assert!(status_line.starts_with("HTTP/1.1 "), "{status_line}");
    let status = status_line[9..12].parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .map(|line| {
            let (k, v) = line.split_once(':').unwrap();
            (k.trim().to_ascii_lowercase(), v.trim().to_string())
        })
        .collect();
    let rest = &raw[end + 4..];
    let chunked = headers.iter().any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if head_only {
        Vec::new()
    } else if chunked {
        let mut body = Vec::new();
        let mut rest = rest;
        while let Some((data, after)) = next_chunk(rest) {
            if data.is_empty() {
                break;
            }
            body.extend_from_slice(data);
            rest = after;
        }
        body
    } else {
        if let Some(len) = headers.iter().find(|(k, _)| k == "content-length") {
            assert_eq!(len.1.parse::<usize>().unwrap(), rest.len(), "content-length");
        }
        rest.to_vec()
    };
    Response { status, headers, body }
}

/// Splits one chunk off a chunked body: (data, what follows), or `None` if incomplete.
fn next_chunk(buf: &[u8]) -> Option<(&[u8], &[u8])> {
    let line_end = buf.windows(2).position(|w| w == b"\r\n")?;
    let size_text = std::str::from_utf8(&buf[..line_end]).ok()?;
    let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
    let start = line_end + 2;
    if buf.len() < start + size + 2 {
        return None;
    }
    Some((&buf[start..start + size], &buf[start + size + 2..]))
}

/// One server-sent event.
#[derive(Debug, Clone)]
pub(crate) struct Sse {
    pub(crate) event: String,
    pub(crate) id: Option<String>,
    pub(crate) data: String,
}

impl Sse {
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("{e}: {}", self.data))
    }
}

/// Reads `GET /api/events` as it streams.
pub(crate) struct EventReader {
    stream: TcpStream,
    raw: Vec<u8>,
    text: String,
}

impl EventReader {
    async fn open(addr: SocketAddr) -> Self {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let head = format!("GET /api/events HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        let end = loop {
            if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                break end;
            }
            let mut chunk = [0; 4096];
            let n = tokio::time::timeout(PATIENCE, stream.read(&mut chunk)).await.expect("response head").unwrap();
            assert!(n > 0, "closed before the response head");
            raw.extend_from_slice(&chunk[..n]);
        };
        let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(head.contains("content-type: text/event-stream"), "{head}");
        assert!(head.contains("transfer-encoding: chunked"), "{head}");
        let raw = raw[end + 4..].to_vec();
        Self { stream, raw, text: String::new() }
    }

    /// The next event (comments skipped); `None` when the server ends the stream.
    pub(crate) async fn next(&mut self) -> Option<Sse> {
        loop {
            while let Some((data, rest)) = next_chunk(&self.raw) {
                if data.is_empty() {
                    return None;
                }
                self.text.push_str(std::str::from_utf8(data).unwrap());
                self.raw = rest.to_vec();
            }
            if let Some(end) = self.text.find("\n\n") {
                let block: String = self.text.drain(..end + 2).collect();
                let mut sse = Sse { event: String::from("message"), id: None, data: String::new() };
                let mut any = false;
                for line in block.lines() {
                    let (field, value) = line.split_once(':').unwrap_or((line, ""));
                    let value = value.strip_prefix(' ').unwrap_or(value);
                    match field {
                        "event" => sse.event = value.to_string(),
                        "id" => sse.id = Some(value.to_string()),
                        "data" => {
                            if any {
                                sse.data.push('\n');
                            }
                            sse.data.push_str(value);
                            any = true;
                        }
                        _ => {}
                    }
                }
                if any {
                    return Some(sse);
                }
                continue;
            }
            let mut chunk = [0; 8192];
            let n = self.stream.read(&mut chunk).await.ok()?;
            if n == 0 {
                return None;
            }
            self.raw.extend_from_slice(&chunk[..n]);
        }
    }

    /// Skips events until one of type `event` that `check` accepts.
    pub(crate) async fn wait_for(&mut self, event: &str, check: impl Fn(&serde_json::Value) -> bool) -> Sse {
        let found = async {
            loop {
                let sse = self.next().await.unwrap_or_else(|| panic!("the stream ended before a {event} event"));
                if sse.event == event && check(&sse.json()) {
                    return sse;
                }
            }
        };
        tokio::time::timeout(PATIENCE, found).await.unwrap_or_else(|_| panic!("no matching {event} event"))
    }
}

impl ConsoleServer {
    /// Starts the shutdown and returns at once; the handle resolves when `run` returns.
    pub(crate) fn begin_stop(self) -> tokio::task::JoinHandle<io::Result<()>> {
        tokio::spawn(self.stop())
    }
}
