//! `http_get` without the internet: local servers (refused unless a test lets its own server
//! through, which only test builds can) and a resolver that maps test names.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;

/// A local HTTP server answering each path with a fixed response; counts its connections.
struct Server {
    addr: SocketAddr,
    hits: Arc<AtomicUsize>,
}

async fn server(routes: Vec<(&'static str, String)>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let routes: Arc<HashMap<&str, String>> = Arc::new(routes.into_iter().collect());
    let counter = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let routes = routes.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let mut got = Vec::new();
                while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                    let Ok(n) = sock.read(&mut buf).await else { return };
                    if n == 0 {
                        return;
                    }
                    got.extend_from_slice(&buf[..n]);
                }
                let head = String::from_utf8_lossy(&got);
                let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                let reply =
                    routes.get(path.as_str()).cloned().unwrap_or_else(|| response("404 Not Found", "text/plain", "no"));
                let _ = sock.write_all(reply.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    Server { addr, hits }
}

fn response(status: &str, content_type: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn redirect_to(location: &str) -> String {
    format!("HTTP/1.1 302 Found\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
}

/// Maps names to fixed addresses (`public.test` → 127.0.0.1), like a DNS answer an attacker
/// controls.
struct MapResolver(HashMap<&'static str, IpAddr>);

impl Resolver for MapResolver {
    fn lookup<'a>(
        &'a self,
        host: &'a str,
        port: u16,
    ) -> Pin<Box<dyn Future<Output = io::Result<Vec<SocketAddr>>> + Send + 'a>> {
        let found = self.0.get(host).map(|ip| vec![SocketAddr::new(*ip, port)]);
        Box::pin(async move { found.ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "unknown test name")) })
    }
}

fn fetcher(allowed: Vec<SocketAddr>) -> Fetcher {
    let names = HashMap::from([
        ("public.test", IpAddr::V4(Ipv4Addr::LOCALHOST)),
        ("mixed.test", IpAddr::V4(Ipv4Addr::new(10, 0, 0, 5))),
        ("v6.test", IpAddr::V6(Ipv6Addr::LOCALHOST)),
    ]);
    let mut f = Fetcher::new(Arc::new(MapResolver(names)), WebConfig::default());
    f.allowed = allowed;
    f
}

fn refused(r: Result<Page, WebError>) -> String {
    match r {
        Err(WebError::Refused(why)) => why,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn only_global_addresses_are_public() {
    for ip in [
        "0.0.0.0",
        "10.1.2.3",
        "127.0.0.1",
        "100.64.0.1",
        "100.127.255.254",
        "169.254.169.254",
        "172.16.0.1",
        "172.31.255.255",
        "192.168.1.1",
        "192.0.0.8",
        "192.0.2.1",
        "198.18.0.1",
        "198.51.100.7",
        "203.0.113.9",
        "224.0.0.1",
        "239.255.255.250",
        "240.0.0.1",
        "255.255.255.255",
        "::",
        "::1",
        "::ffff:127.0.0.1",
        "::ffff:8.8.8.8",
        "::127.0.0.1",
        "fc00::1",
        "fd12:3456::1",
        "fe80::1",
        "fec0::1",
        "ff02::1",
        "2001:db8::1",
        "2001::1",
        "64:ff9b::7f00:1",
        "100::1",
        "2002:7f00:1::1",
        "2002:c0a8:101::1",
    ] {
        assert!(!is_public(ip.parse().unwrap()), "{ip} must not count as public");
    }
    for ip in [
        "8.8.8.8",
        "1.1.1.1",
        "100.63.255.255",
        "100.128.0.1",
        "172.32.0.1",
        "151.101.1.69",
        "2606:4700::1111",
        "2a00:1450:4001::200e",
        "2002:808:808::1",
    ] {
        assert!(is_public(ip.parse().unwrap()), "{ip} is public");
    }
}

#[tokio::test]
async fn a_local_server_is_refused_and_never_reached() {
    let s = server(vec![("/", response("200 OK", "text/plain", "secret"))]).await;
    let f = fetcher(Vec::new());
    let port = s.addr.port();
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://public.test:{port}/"),
        format!("http://mixed.test:{port}/"),
        format!("http://v6.test:{port}/"),
        format!("http://[::1]:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://0x7f.0.0.1:{port}/"),
        format!("https://127.0.0.1:{port}/"),
    ] {
        let why = refused(f.get(&url).await);
        assert!(why.contains("not a public address"), "{url}: {why}");
    }
    // `localhost` through the system's resolver.
    let system = Fetcher::new(Arc::new(SystemResolver), WebConfig::default());
    let why = refused(system.get(&format!("http://localhost:{port}/")).await);
    assert!(why.contains("not a public address"), "{why}");
    assert_eq!(s.hits.load(Ordering::SeqCst), 0, "nothing connected to the local server");
}

#[tokio::test]
async fn other_schemes_and_credentials_are_refused() {
    let f = fetcher(Vec::new());
    assert!(refused(f.get("file:///etc/passwd").await).contains("only http and https"));
    assert!(refused(f.get("ftp://example.com/x").await).contains("only http and https"));
    assert!(refused(f.get("http://user:pw@example.com/").await).contains("credentials"));
    assert!(refused(f.get("not a url").await).starts_with("not a URL"));
}

#[tokio::test]
async fn a_page_is_read_as_text_and_every_redirect_hop_is_checked() {
    let html = "<!DOCTYPE html><html><head><title>x</title><style>body{color:red}</style></head><body>\
                <script>alert('no')</script><h1>Install</h1><p>Run &lt;b&gt; <b>apt</b>&nbsp;install</p>\
                <!-- hidden --><ul><li>one</li><li>two</li></ul></body></html>";
    let target = server(vec![("/", response("200 OK", "text/plain", "private"))]).await;
    let t = target.addr.port();
    let s = server(vec![
        ("/page", response("200 OK", "text/html; charset=utf-8", html)),
        ("/to-private", redirect_to(&format!("http://127.0.0.1:{t}/"))),
        ("/to-name", redirect_to(&format!("http://public.test:{t}/"))),
        ("/to-self", redirect_to("/page")),
        ("/loop", redirect_to("/loop")),
    ])
    .await;
    let f = fetcher(vec![s.addr]);
    let base = format!("http://127.0.0.1:{}", s.addr.port());

    let page = f.get(&format!("{base}/page")).await.unwrap();
    assert_eq!(page.status, 200);
    assert_eq!(page.text, "Install\nRun <b> apt install\none\ntwo");
    let via = f.get(&format!("{base}/to-self")).await.unwrap();
    assert_eq!(via.url, format!("{base}/page"));
    assert_eq!(via.text, page.text);

    assert!(refused(f.get(&format!("{base}/to-private")).await).contains("127.0.0.1"));
    assert!(refused(f.get(&format!("{base}/to-name")).await).contains("`public.test` is 127.0.0.1"));
    assert_eq!(target.hits.load(Ordering::SeqCst), 0, "no redirect reached the private server");
    match f.get(&format!("{base}/loop")).await {
        Err(WebError::Failed(why)) => assert_eq!(why, "more than 5 redirects"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn bodies_are_read_up_to_the_cap() {
    let big = "x".repeat(100_000);
    let s = server(vec![("/big", response("200 OK", "text/plain", &big))]).await;
    let mut f = fetcher(vec![s.addr]);
    f.config = WebConfig { max_body: 10_000, max_text: 4_000, ..WebConfig::default() };
    let page = f.get(&format!("http://127.0.0.1:{}/big", s.addr.port())).await.unwrap();
    assert!(page.truncated);
    assert_eq!(page.bytes, 10_000);
    assert_eq!(page.text.len(), 4_000);
}

#[test]
fn html_is_stripped_to_readable_text() {
    assert_eq!(strip_html("<p>a</p><SCRIPT type=x>evil()</SCRIPT><p>b &amp; c</p>"), "a\nb & c");
    assert_eq!(strip_html("<style>p{}</style><noscript>n</noscript>t"), "t");
    assert_eq!(strip_html("<table><tr><td>1</td><td>2</td></tr></table>"), "1 2");
    assert_eq!(strip_html("<scripted>kept</scripted>"), "kept", "only the script element is dropped");
}
