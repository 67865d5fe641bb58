//! The teaching page (`/www/`) and its WebAssembly bindings (`/pkg/`): from a directory
//! (`--http-root`), from the binary itself (built with the `embed-page` feature), from the
//! source tree a development build came from, or a page that explains how to get it.
//!
//! Files carry cache validators (`ETag` for embedded files, `Last-Modified` from a directory),
//! so a browser revalidating with `If-None-Match`/`If-Modified-Since` gets 304; compression
//! is the router's (`mod.rs`). Every response here carries [`CONTENT_SECURITY_POLICY`]: the
//! live view shows names any RocketMQ client chose, so markup that slipped past escaping must
//! still not run.

use std::path::PathBuf;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;

use super::Ctx;

/// The page's policy: its own scripts and WebAssembly only, styles inline (the page sets
/// positions in `style` attributes), requests to any console (the live view compares peers),
/// never framed. `tests/browser/lib/server.mjs` sends the same, and the browser tests check it.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' http: https:; \
    object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// Where the page comes from.
#[derive(Clone, Debug, Default)]
pub enum Page {
    /// No page: `/www/` explains why and how to get one.
    #[default]
    None,
    /// A directory holding `www/` and `pkg/` (`--http-root`).
    Dir(PathBuf),
    /// The source tree this binary was built from (a build without the embedded page).
    SourceTree(PathBuf),
    /// The copy compiled into the binary (`embed-page`).
    Embedded,
}

impl Page {
    /// Whether this binary carries the page.
    pub const EMBEDDED: bool = cfg!(feature = "embed-page");

    /// What the binary serves without `--http-root`: its embedded page, else the source tree
    /// it was built from (if it still has `www/`), else nothing.
    #[must_use]
    pub fn builtin() -> Self {
        if Self::EMBEDDED {
            return Self::Embedded;
        }
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().map(PathBuf::from);
        match root {
            Some(root) if root.join("www").is_dir() => Self::SourceTree(root),
            _ => Self::None,
        }
    }

    /// Logs where the page comes from, and what is missing.
    pub(crate) fn log_at_start(&self) {
        let dir = match self {
            Self::Embedded => {
                tracing::info!("HTTP: the page (www/, pkg/) is embedded in this binary, {} files", embedded::count());
                return;
            }
            Self::None => {
                tracing::warn!(
                    "HTTP: the page is not embedded in this binary (built without the embed-page feature) and no --http-root was given: /www/ explains how to get it"
                );
                return;
            }
            Self::SourceTree(root) => {
                tracing::warn!(
                    "HTTP: the page is not embedded in this binary (built without the embed-page feature); serving it from the source tree {}",
                    root.display()
                );
                root
            }
            Self::Dir(root) => {
                tracing::info!("HTTP: serving the page from {} (--http-root)", root.display());
                root
            }
        };
        if !dir.join("www").is_dir() {
            tracing::warn!("HTTP: no www/ under {}: the page is not served", dir.display());
        } else if !dir.join("pkg").join("nameserver_wasm_bg.wasm").is_file() {
            tracing::warn!(
                "HTTP: pkg/ is missing under {}: the page cannot start its simulation (build it with scripts/build-wasm.sh)",
                dir.display()
            );
        }
    }
}

/// The page's routes: `/` and `/www` redirect to `/www/`.
pub(crate) fn routes(page: &Page) -> Router<Ctx> {
    let app = Router::new()
        .route("/", get(|| async { Redirect::to("/www/") }))
        .route("/www", get(|| async { Redirect::to("/www/") }));
    let app = match page {
        Page::Dir(root) | Page::SourceTree(root) => {
            // Only these two folders of the root are served; ServeDir refuses `..`.
            let files = ServeDir::new(root);
            app.route_service("/www/", files.clone())
                .route_service("/www/{*path}", files.clone())
                .route_service("/pkg/{*path}", files)
        }
        Page::Embedded => app
            .route("/www/", get(|headers: HeaderMap| async move { embedded::serve("www/index.html", &headers) }))
            .route(
                "/www/{*path}",
                get(|axum::extract::Path(path): axum::extract::Path<String>, headers: HeaderMap| async move {
                    embedded::serve(&format!("www/{path}"), &headers)
                }),
            )
            .route(
                "/pkg/{*path}",
                get(|axum::extract::Path(path): axum::extract::Path<String>, headers: HeaderMap| async move {
                    embedded::serve(&format!("pkg/{path}"), &headers)
                }),
            ),
        Page::None => {
            let missing = || async { missing() };
            app.route("/www/", get(missing)).route("/www/{*path}", get(missing)).route("/pkg/{*path}", get(missing))
        }
    };
    app.layer(SetResponseHeaderLayer::overriding(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    ))
    .layer(SetResponseHeaderLayer::overriding(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")))
}

/// `/www/` of a binary without its page.
fn missing() -> Response {
    let text = "<!doctype html><meta charset=utf-8><title>RocketMQ NameServer: no page</title>\
        <h1>This NameServer was built without its page</h1>\
        <p>The binary was built without the <code>embed-page</code> feature and started without \
        <code>--http-root</code>, so it has no teaching page or live view to serve.</p>\
        <p>Use a release build (<code>scripts/dist.sh</code> builds one with the page embedded), or start it with \
        <code>--http-root DIR</code> naming a checkout where <code>scripts/build-wasm.sh</code> has built \
        <code>pkg/</code>.</p>\
        <p>The NameServer itself and the console's <a href=\"/api\">/api</a>, <a href=\"/metrics\">/metrics</a>, \
        <a href=\"/healthz\">/healthz</a> and <a href=\"/readyz\">/readyz</a> work.</p>\n";
    (StatusCode::NOT_FOUND, Html(text)).into_response()
}

/// Whether `If-None-Match` names `etag` (weak comparison, as RFC 9110 asks for GET).
#[cfg_attr(not(feature = "embed-page"), allow(dead_code, reason = "only embedded files carry an ETag"))]
fn matches_etag(headers: &HeaderMap, etag: &str) -> bool {
    let opaque = |tag: &str| tag.trim().trim_start_matches("W/").to_string();
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|tag| tag.trim() == "*" || opaque(tag) == opaque(etag))
}

/// A 200 with `body`, or a 304 when the client already has it.
#[cfg_attr(not(feature = "embed-page"), allow(dead_code, reason = "only embedded files carry an ETag"))]
fn validated(body: Vec<u8>, content_type: &str, etag: String, request: &HeaderMap) -> Response {
    let etag = HeaderValue::from_str(&etag).unwrap_or_else(|_| HeaderValue::from_static("\"\""));
    if matches_etag(request, etag.to_str().unwrap_or_default()) {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response();
    }
    let content_type =
        HeaderValue::from_str(content_type).unwrap_or(HeaderValue::from_static("application/octet-stream"));
    ([(header::CONTENT_TYPE, content_type), (header::ETAG, etag)], body).into_response()
}

#[cfg(feature = "embed-page")]
mod embedded {
    use axum::http::HeaderMap;
    use axum::response::{IntoResponse, Response};
    use rust_embed::RustEmbed;

    #[derive(RustEmbed)]
    #[folder = "../www"]
    struct Www;

    #[derive(RustEmbed)]
    #[folder = "../pkg"]
    struct Pkg;

    pub(super) fn count() -> usize {
        Www::iter().count() + Pkg::iter().count()
    }

    /// `path` is `www/...` or `pkg/...`.
    pub(super) fn serve(path: &str, headers: &HeaderMap) -> Response {
        let file = match path.split_once('/') {
            Some(("www", rest)) => Www::get(rest),
            Some(("pkg", rest)) => Pkg::get(rest),
            _ => None,
        };
        let Some(file) = file else { return (axum::http::StatusCode::NOT_FOUND, "not found\n").into_response() };
        let hash = file.metadata.sha256_hash();
        let etag = format!("\"{}\"", hash[..16].iter().map(|b| format!("{b:02x}")).collect::<String>());
        let content_type = file.metadata.mimetype().to_string();
        super::validated(file.data.into_owned(), &content_type, etag, headers)
    }
}

#[cfg(not(feature = "embed-page"))]
mod embedded {
    use axum::http::HeaderMap;
    use axum::response::Response;

    pub(super) fn count() -> usize {
        0
    }

    pub(super) fn serve(_path: &str, _headers: &HeaderMap) -> Response {
        super::missing()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_compares_weakly_and_reads_lists() {
        let with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::IF_NONE_MATCH, HeaderValue::from_static(value));
            headers
        };
        assert!(matches_etag(&with("\"abc\""), "\"abc\""));
        assert!(matches_etag(&with("W/\"abc\""), "\"abc\""));
        assert!(matches_etag(&with("\"x\", \"abc\""), "\"abc\""));
        assert!(matches_etag(&with("*"), "\"abc\""));
        assert!(!matches_etag(&with("\"abcd\""), "\"abc\""));
        assert!(!matches_etag(&HeaderMap::new(), "\"abc\""));
    }
}
