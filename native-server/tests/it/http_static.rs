//! The console's static files and JSON over HTTP: gzip or brotli when the client accepts it
//! (and byte-identical once decoded), never for the event stream; cache validators on files
//! (304 on revalidation); and the page of a binary built without it.

use crate::http_support;

use std::io::Read as _;

use http_support::{ConsoleServer, Response, request};
use nameserver::http::{HttpOptions, Page};

/// A page directory with files of every compressible kind, large enough to be compressed.
fn page_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("www")).unwrap();
    std::fs::create_dir(root.path().join("pkg")).unwrap();
    let filler = "RocketMQ NameServer route tables. ".repeat(200);
    std::fs::write(root.path().join("www/index.html"), format!("<!doctype html><title>page</title><p>{filler}"))
        .unwrap();
    std::fs::write(root.path().join("www/main.js"), format!("export const text = {filler:?};\n")).unwrap();
    std::fs::write(root.path().join("www/style.css"), format!("/* {filler} */ body {{ margin: 0 }}\n")).unwrap();
    let mut wasm = b"\0asm\x01\0\0\0".to_vec();
    wasm.extend(std::iter::repeat_n(0u8, 20_000));
    std::fs::write(root.path().join("pkg/nameserver_wasm_bg.wasm"), wasm).unwrap();
    root
}

fn decoded(response: &Response) -> Vec<u8> {
    let mut out = Vec::new();
    match response.header("content-encoding") {
        Some("gzip") => {
            flate2::read::GzDecoder::new(&response.body[..]).read_to_end(&mut out).unwrap();
        }
        Some("br") => {
            brotli_decompressor::Decompressor::new(&response.body[..], 4096).read_to_end(&mut out).unwrap();
        }
        None => out.clone_from(&response.body),
        Some(other) => panic!("unexpected content-encoding {other}"),
    }
    out
}

async fn get(server: &ConsoleServer, path: &str, headers: &[(&str, &str)]) -> Response {
    request(server.http, "GET", path, headers, b"").await
}

#[tokio::test]
async fn static_files_and_json_are_compressed_when_accepted() {
    let root = page_root();
    let options = HttpOptions { page: Page::Dir(root.path().to_path_buf()), ..HttpOptions::default() };
    let server = ConsoleServer::start_with(options, |_| {}).await;
    let files = [
        ("/www/index.html", "www/index.html", "text/html"),
        ("/www/main.js", "www/main.js", "javascript"),
        ("/www/style.css", "www/style.css", "text/css"),
        ("/pkg/nameserver_wasm_bg.wasm", "pkg/nameserver_wasm_bg.wasm", "application/wasm"),
    ];
    for (path, file, kind) in files {
        let original = std::fs::read(root.path().join(file)).unwrap();
        let plain = get(&server, path, &[]).await;
        assert_eq!((plain.status, plain.header("content-encoding")), (200, None), "{path}");
        assert_eq!(plain.body, original, "{path}");
        for encoding in ["gzip", "br"] {
            let response = get(&server, path, &[("Accept-Encoding", encoding)]).await;
            assert_eq!(response.status, 200, "{path} {encoding}");
            assert_eq!(response.header("content-encoding"), Some(encoding), "{path}");
            assert!(response.header("content-type").unwrap().contains(kind), "{path}");
            assert!(response.header("vary").unwrap_or_default().to_ascii_lowercase().contains("accept-encoding"));
            assert!(response.body.len() < original.len() / 2, "{path} {encoding}: {} bytes", response.body.len());
            assert_eq!(decoded(&response), original, "{path} {encoding}");
        }
    }
    // A client preferring brotli gets it; q=0 refuses an encoding.
    let prefers = get(&server, "/www/main.js", &[("Accept-Encoding", "gzip;q=0.5, br;q=1")]).await;
    assert_eq!(prefers.header("content-encoding"), Some("br"));
    let refuses = get(&server, "/www/main.js", &[("Accept-Encoding", "gzip;q=0")]).await;
    assert_eq!(refuses.header("content-encoding"), None);

    // JSON from the API too.
    let json = get(&server, "/api/config", &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(json.header("content-encoding"), Some("gzip"));
    let value: serde_json::Value = serde_json::from_slice(&decoded(&json)).unwrap();
    assert!(value.get("listenPort").is_some(), "{value}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn files_revalidate_with_304() {
    let root = page_root();
    let options = HttpOptions { page: Page::Dir(root.path().to_path_buf()), ..HttpOptions::default() };
    let server = ConsoleServer::start_with(options, |_| {}).await;
    for path in ["/www/main.js", "/pkg/nameserver_wasm_bg.wasm"] {
        let first = get(&server, path, &[("Accept-Encoding", "gzip")]).await;
        assert_eq!(first.header("cache-control"), Some("no-cache"), "revalidate on every use: {path}");
        let modified = first.header("last-modified").unwrap_or_else(|| panic!("{path}: no Last-Modified"));
        let again = get(&server, path, &[("If-Modified-Since", modified), ("Accept-Encoding", "gzip")]).await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty(), "{path}");
        let old = get(&server, path, &[("If-Modified-Since", "Mon, 01 Jan 2001 00:00:00 GMT")]).await;
        assert_eq!(old.status, 200, "{path}: changed since 2001");
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_event_stream_is_never_compressed() {
    let server = ConsoleServer::start().await;
    let mut stream = tokio::net::TcpStream::connect(server.http).await.unwrap();
    let head = format!(
        "GET /api/events HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nAccept-Encoding: gzip, br\r\n\r\n",
        server.http
    );
    tokio::io::AsyncWriteExt::write_all(&mut stream, head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    while !raw.windows(4).any(|w| w == b"\r\n\r\n") {
        let mut chunk = [0; 1024];
        let n = tokio::io::AsyncReadExt::read(&mut stream, &mut chunk).await.unwrap();
        assert!(n > 0);
        raw.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&raw).to_ascii_lowercase();
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    assert!(!head.contains("content-encoding"), "{head}");
    drop(stream);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_binary_without_its_page_says_so() {
    let server = ConsoleServer::start().await;
    for path in ["/www/", "/www/main.js", "/pkg/nameserver_wasm_bg.wasm"] {
        let response = get(&server, path, &[]).await;
        assert_eq!(response.status, 404, "{path}");
        assert!(response.header("content-type").unwrap().starts_with("text/html"), "{path}");
        let text = response.text();
        assert!(text.contains("built without its page") && text.contains("--http-root"), "{text}");
    }
    assert_eq!(get(&server, "/", &[]).await.header("location"), Some("/www/"));
    server.stop().await.unwrap();
}
