//! The HTTP/1.1 server of `site serve`: accepts connections and hands each
//! request to the app, with the limits a server open to a network needs. At most
//! [`MAX_CONNECTIONS`] are served at once (the next wait in the listen queue), and
//! a client has [`HEADER_TIMEOUT`] to send a request's headers, so connections that
//! never finish them are closed instead of kept forever.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::Semaphore;
use tower_service::Service;

use crate::rest::LocalAddr;

/// Connections served at once (page loads, uploads, live-reload streams): half
/// the process's file descriptors, the rest kept for files and child processes,
/// and never more than 4,096.
pub fn max_connections() -> usize {
    let descriptors = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(4096 * 2);
    usize::try_from(descriptors / 2)
        .unwrap_or(4096)
        .clamp(64, 4096)
}
/// How long a client may take to send a request's headers (and how long an idle
/// kept-alive connection waits for its next request).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections the kernel completes and queues before the server accepts them.
/// A burst (a page's pictures and scripts, a thousand sends at once) waits here
/// instead of having its connections refused and tried again a second, three,
/// seven seconds later, as past the 128 that `TcpListener::bind` asks for. The
/// kernel caps it at `net.core.somaxconn`.
pub const BACKLOG: u32 = 4096;

/// A listener on `addr` (`host:port`; port 0 for any free one) with [`BACKLOG`].
pub async fn listen(addr: &str) -> std::io::Result<TcpListener> {
    let mut last = None;
    for address in tokio::net::lookup_host(addr).await? {
        let socket = if address.is_ipv4() {
            TcpSocket::new_v4()?
        } else {
            TcpSocket::new_v6()?
        };
        // As `TcpListener::bind` does: a restarted server can take its port again at once.
        socket.set_reuseaddr(true)?;
        match socket.bind(address).and_then(|()| socket.listen(BACKLOG)) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "the address names no host",
        )
    }))
}

/// Serves `app` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(max_connections()));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT)
        .keep_alive(true);
    let accepting = async {
        loop {
            let Ok(slot) = slots.clone().acquire_owned().await else {
                return Ok(());
            };
            let (stream, peer) = match listener.accept().await {
                Ok(accepted) => accepted,
                Err(e) if transient(&e) => {
                    // Out of file descriptors, or a client gone before it was
                    // accepted: wait a moment rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                Err(e) => return Err(e),
            };
            let _ = stream.set_nodelay(true);
            let local = stream.local_addr().ok().map(LocalAddr);
            // Each request carries the peer's address (for the messages'
            // per-address limit) and the address it reached (this server's own
            // name for itself), added as it arrives: the app itself is shared.
            let app = app.clone();
            let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
                request
                    .extensions_mut()
                    .insert(axum::extract::ConnectInfo(peer));
                if let Some(local) = local {
                    request.extensions_mut().insert(local);
                }
                // A Router is always ready, so it is called without polling.
                app.clone().call(request.map(axum::body::Body::new))
            });
            let connection = http.serve_connection(TokioIo::new(stream), service);
            tokio::spawn(async move {
                let _ = connection.await;
                drop(slot);
            });
        }
    };
    tokio::select! {
        result = accepting => result,
        () = shutdown => Ok(()),
    }
}

fn transient(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
    ) || matches!(e.raw_os_error(), Some(23 | 24)) // ENFILE, EMFILE
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpStream;

    /// Six hundred clients connecting at once to a server still busy with others
    /// all get a connection, queued until it accepts them.
    #[tokio::test]
    async fn a_burst_of_connections_waits_in_the_queue() {
        let listener = listen("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let connected = tokio::task::spawn_blocking(move || {
            (0..600)
                .map(|_| TcpStream::connect_timeout(&address, Duration::from_secs(1)))
                .take_while(Result::is_ok)
                .count()
        })
        .await
        .unwrap();
        assert_eq!(connected, 600);
        drop(listener);
    }
}
