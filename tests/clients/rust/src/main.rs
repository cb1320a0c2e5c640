// A host of test_relay.sh: a rustls client (its own TLS, the system's roots through rustls-native-certs,
// std's sockets) posting N chat requests to https://HOST/PATH with its own key sk-host over HTTP/1.0, each
// answer printed as "STATUS BODY" on one line; MODE "stream": one request whose body is written raw.
// Built with the feature fake-webpki-roots it carries a static named as the webpki-roots crate's.
use std::convert::TryFrom;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;

fn one(cfg: &Arc<rustls::ClientConfig>, host: &str, path: &str) -> Result<(String, Vec<u8>), String> {
    let name = rustls::ServerName::try_from(host).map_err(|e| e.to_string())?;
    let conn = rustls::ClientConnection::new(cfg.clone(), name).map_err(|e| e.to_string())?;
    let sock = TcpStream::connect((host, 443)).map_err(|e| e.to_string())?;
    let mut tls = rustls::StreamOwned::new(conn, sock);
    let body = r#"{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}"#;
    let req = format!("POST {} HTTP/1.0\r\nHost: {}\r\nAuthorization: Bearer sk-host\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{}", path, host, body.len(), body);
    tls.write_all(req.as_bytes()).map_err(|e| e.to_string())?;
    let mut all = Vec::new();
    match tls.read_to_end(&mut all) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !all.is_empty() => {}
        Err(e) => return Err(e.to_string()),
    }
    let end = all.windows(4).position(|w| w == b"\r\n\r\n").ok_or("no head")?;
    let head = String::from_utf8_lossy(&all[..end]).to_string();
    let status = head.split(' ').nth(1).unwrap_or("?").to_string();
    Ok((status, all[end + 4..].to_vec()))
}

#[cfg(feature = "fake-webpki-roots")]
mod webpki_roots {
    #[used]
    pub static TLS_SERVER_ROOTS: [u8; 4] = *b"none";
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (host, path, mode) = (&args[1], &args[2], &args[3]);
    let n: usize = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(1);
    let mut roots = rustls::RootCertStore::empty();
    for c in rustls_native_certs::load_native_certs().expect("roots") {
        let _ = roots.add(&rustls::Certificate(c.0));
    }
    let cfg = Arc::new(rustls::ClientConfig::builder().with_safe_defaults().with_root_certificates(roots).with_no_client_auth());
    for _ in 0..(if mode == "stream" { 1 } else { n }) {
        match one(&cfg, host, path) {
            Ok((status, body)) if mode == "stream" => { let _ = status; std::io::stdout().write_all(&body).unwrap(); }
            Ok((status, body)) => println!("{} {}", status, String::from_utf8_lossy(&body).trim()),
            Err(e) => { println!("error {}", e); std::process::exit(1); }
        }
    }
}
