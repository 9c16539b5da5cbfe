//! Any body posted to the storage API, as `site serve` receives it, a multipart
//! form or a raw body (the file's bytes as the whole body): the answer is the
//! storage JSON with HTTP 200 or 400, never a server error, and nothing is
//! written outside the storage folder.
#![no_main]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use libfuzzer_sys::fuzz_target;
use site::storage::http;
use site_fuzz::{nothing_outside, scratch_store};
use tower::ServiceExt;

struct Fixture {
    base: PathBuf,
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let (base, store) = scratch_store("upload");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        Fixture {
            base,
            runtime,
            router: http::router(Arc::new(store)),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    static N: AtomicU64 = AtomicU64::new(0);
    let Fixture {
        base,
        runtime,
        router,
    } = fixture();
    // The first line, when it starts with `?`, is the form's boundary; when it
    // starts with `!`, the whole `Content-Type` of a raw body.
    let first_line = |rest: &[u8]| {
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        let line = String::from_utf8_lossy(&rest[..end]).to_string();
        (line, rest.get(end + 1..).unwrap_or_default().to_vec())
    };
    let (content_type, body) = match data.split_first() {
        Some((b'?', rest)) => {
            let (boundary, body) = first_line(rest);
            (format!("multipart/form-data; boundary={boundary}"), body)
        }
        Some((b'!', rest)) => first_line(rest),
        _ => (
            "multipart/form-data; boundary=fuzz".to_string(),
            data.to_vec(),
        ),
    };
    let key = format!(
        "public/{}_fuzz.png",
        1_700_000_000_000u64 + N.fetch_add(1, Ordering::Relaxed)
    );
    let Ok(request) = Request::post(format!("/storage/v1/object/contact-attachments/{key}"))
        .header("authorization", "Bearer")
        .header("content-type", content_type)
        .body(Body::from(body))
    else {
        return;
    };
    let (status, answer) = runtime.block_on(async {
        let response = router.clone().oneshot(request).await.expect("infallible");
        let status = response.status();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("a whole answer")
            .to_bytes();
        (status, bytes)
    });
    assert!(
        status == 200 || status == 400,
        "HTTP {status}: {}",
        String::from_utf8_lossy(&answer)
    );
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with('{') && text.ends_with('}'), "{text}");
    nothing_outside(base, "the body");
});
