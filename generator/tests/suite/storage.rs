//! The storage API's uploads through its router, as `site serve` mounts it: a
//! raw body (the file's bytes as the whole body, what storage-js sends for an
//! `ArrayBuffer` or a typed array) is stored as a form's file is, and refused
//! with the same answer wherever a form is refused. e2e/storage.test.mjs puts
//! the same to a running `site serve` over HTTP.

use std::path::PathBuf;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode};
use site::storage::{http, policy, Bucket, OpenPostings, Store};
use tower_service::Service;

const ANON: &str = "anon-key";
const SERVICE: &str = "service-key";
const CONTACT: &str = "contact-attachments";
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
const PDF: &[u8] = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n";
const LIMIT: usize = 5 * 1024 * 1024;

/// A store of the production buckets in a scratch folder, removed when dropped;
/// the posting `open-job` takes applications.
struct Scratch {
    dir: PathBuf,
    router: axum::Router,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("site-storage-suite-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let buckets = policy::BUCKETS
            .iter()
            .map(|p| Bucket::from_policy(p))
            .collect();
        let mut store = Store::new(&dir, buckets, ANON).unwrap();
        store.service_key = SERVICE.into();
        store.takes_applications = OpenPostings(Arc::new(|job| job == "open-job"));
        Scratch {
            dir,
            router: http::router(Arc::new(store)),
        }
    }

    async fn send(&self, request: Request<Body>) -> Answer {
        let response = self.router.clone().call(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        Answer {
            status,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
            bytes: body,
        }
    }

    /// `file` as the whole body, with `headers` (a `Content-Length` only when given).
    async fn raw(&self, bucket: &str, key: &str, headers: &[(&str, &str)], file: Body) -> Answer {
        let mut request = Request::post(format!("/storage/v1/object/{bucket}/{key}"))
            .header("authorization", format!("Bearer {ANON}"));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        self.send(request.body(file).unwrap()).await
    }

    /// `file` of `mime` in a form as storage-js sends a `File`.
    async fn form(&self, bucket: &str, key: &str, upsert: bool, mime: &str, file: &[u8]) -> Answer {
        let mut body = format!(
            "--b\r\nContent-Disposition: form-data; name=\"cacheControl\"\r\n\r\n3600\r\n\
             --b\r\nContent-Disposition: form-data; name=\"\"; filename=\"f\"\r\n\
             Content-Type: {mime}\r\n\r\n"
        )
        .into_bytes();
        body.extend_from_slice(file);
        body.extend_from_slice(b"\r\n--b--\r\n");
        let request = Request::post(format!("/storage/v1/object/{bucket}/{key}"))
            .header("authorization", format!("Bearer {ANON}"))
            .header("content-type", "multipart/form-data; boundary=b")
            .header("x-upsert", upsert.to_string())
            .body(Body::from(body))
            .unwrap();
        self.send(request).await
    }

    fn stored(&self, bucket: &str, key: &str) -> bool {
        self.dir.join(bucket).join(format!("{key}~object")).exists()
    }

    fn nothing_left_over(&self) -> bool {
        std::fs::read_dir(self.dir.join(".tmp")).unwrap().count() == 0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: String,
    bytes: Bytes,
}

impl Answer {
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

/// A body of `chunks` with no `Content-Length`, as a stream is sent.
fn streamed(chunks: Vec<Vec<u8>>) -> Body {
    let stream = futures_util::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>));
    Body::from_stream(stream)
}

fn key(n: u64) -> String {
    format!("public/{}_photo.png", 1_700_000_000_000u64 + n)
}

fn png_of(size: usize) -> Vec<u8> {
    let mut file = PNG.to_vec();
    file.resize(size, 7);
    file
}

fn error(status: &str, error: &str, message: &str, code: &str) -> String {
    format!(
        r#"{{"statusCode":"{status}","error":"{error}","message":"{message}","code":"{code}"}}"#
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_raw_body_is_stored_with_its_type_and_cache_control_and_reads_back_whole() {
    let s = Scratch::new("raw-stored");
    let length = PNG.len().to_string();
    let headers = [
        ("content-type", "image/png"),
        ("cache-control", "max-age=3600"),
        ("content-length", length.as_str()),
    ];
    let answer = s.raw(CONTACT, &key(1), &headers, Body::from(PNG)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let json: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(json["Key"], format!("{CONTACT}/{}", key(1)));
    assert_eq!(json["Id"].as_str().unwrap().len(), 36);

    let read = s
        .send(
            Request::get(format!("/storage/v1/object/public/{CONTACT}/{}", key(1)))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(read.status, StatusCode::OK);
    assert_eq!(&read.bytes[..], PNG);
    assert_eq!(read.header("content-type"), "image/png");
    assert_eq!(read.header("cache-control"), "max-age=3600");

    // Streamed, without a Content-Length, and with neither header: `no-cache`.
    let answer = s
        .raw(
            CONTACT,
            &key(2),
            &[("content-type", "image/png")],
            streamed(vec![PNG[..5].to_vec(), PNG[5..].to_vec()]),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let read = s
        .send(
            Request::get(format!("/storage/v1/object/public/{CONTACT}/{}", key(2)))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(&read.bytes[..], PNG);
    assert_eq!(read.header("cache-control"), "no-cache");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_raw_body_is_refused_with_the_forms_answer() {
    let s = Scratch::new("raw-refused");
    let png = ("content-type", "image/png");
    let over = png_of(LIMIT + 1);
    let over_length = over.len().to_string();
    let exact = png_of(LIMIT);
    let exact_length = exact.len().to_string();
    let too_large = error(
        "413",
        "Payload too large",
        "The object exceeded the maximum allowed size",
        "EntityTooLarge",
    );
    let policy = error(
        "403",
        "Unauthorized",
        "new row violates row-level security policy",
        "AccessDenied",
    );

    // Stored once each way, at exactly the limit.
    let raw = s
        .raw(
            CONTACT,
            &key(1),
            &[png, ("content-length", &exact_length)],
            Body::from(exact.clone()),
        )
        .await;
    assert_eq!(raw.status, StatusCode::OK, "{}", raw.body);
    let form = s.form(CONTACT, &key(2), false, "image/png", &exact).await;
    assert_eq!(form.status, StatusCode::OK, "{}", form.body);

    let cases: Vec<(&str, Answer, Answer, String)> = vec![
        (
            "another type",
            s.raw(
                CONTACT,
                &key(10),
                &[("content-type", "application/pdf")],
                Body::from(PDF),
            )
            .await,
            s.form(CONTACT, &key(10), false, "application/pdf", PDF)
                .await,
            error(
                "415",
                "invalid_mime_type",
                "mime type application/pdf is not supported",
                "InvalidMimeType",
            ),
        ),
        (
            "bytes that are not the type's",
            s.raw(CONTACT, &key(11), &[png], Body::from(PDF)).await,
            s.form(CONTACT, &key(11), false, "image/png", PDF).await,
            error(
                "415",
                "invalid_mime_type",
                "the file's content is not image/png",
                "InvalidMimeType",
            ),
        ),
        (
            "a byte over the limit, its length declared",
            s.raw(
                CONTACT,
                &key(12),
                &[png, ("content-length", &over_length)],
                Body::from(over.clone()),
            )
            .await,
            s.form(CONTACT, &key(12), false, "image/png", &over).await,
            too_large.clone(),
        ),
        (
            "a byte over the limit, streamed",
            s.raw(
                CONTACT,
                &key(13),
                &[png],
                streamed(over.chunks(64 * 1024).map(<[u8]>::to_vec).collect()),
            )
            .await,
            s.form(CONTACT, &key(13), false, "image/png", &over).await,
            too_large.clone(),
        ),
        (
            "a key outside public/",
            s.raw(
                CONTACT,
                "private/1700000000000_a.png",
                &[png],
                Body::from(PNG),
            )
            .await,
            s.form(
                CONTACT,
                "private/1700000000000_a.png",
                false,
                "image/png",
                PNG,
            )
            .await,
            policy.clone(),
        ),
        (
            "a key the server's rule refuses",
            s.raw(CONTACT, "public/a~b.png", &[png], Body::from(PNG))
                .await,
            s.form(CONTACT, "public/a~b.png", false, "image/png", PNG)
                .await,
            error(
                "400",
                "InvalidKey",
                "Invalid key: public/a~b.png",
                "InvalidKey",
            ),
        ),
        (
            "a key that exists",
            s.raw(CONTACT, &key(2), &[png], Body::from(PNG)).await,
            s.form(CONTACT, &key(1), false, "image/png", PNG).await,
            error(
                "409",
                "Duplicate",
                "The resource already exists",
                "KeyAlreadyExists",
            ),
        ),
        (
            "an upsert",
            s.raw(
                CONTACT,
                &key(14),
                &[png, ("x-upsert", "true")],
                Body::from(PNG),
            )
            .await,
            s.form(CONTACT, &key(14), true, "image/png", PNG).await,
            policy.clone(),
        ),
    ];
    for (name, raw, form, expected) in cases {
        assert_eq!(raw.status, StatusCode::BAD_REQUEST, "{name}");
        assert_eq!((name, &raw.body), (name, &form.body));
        assert_eq!(raw.body, expected, "{name}");
    }
    for n in 10..=14 {
        assert!(!s.stored(CONTACT, &key(n)), "{n}");
    }
    assert!(s.nothing_left_over());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_raw_bodys_type_is_its_whole_content_type_header() {
    let s = Scratch::new("raw-type");
    for (header, shown) in [
        // storage-js's default for a raw body with no `contentType`.
        (Some("text/plain;charset=UTF-8"), "text/plain;charset=UTF-8"),
        // Parameters are part of it, and the case counts (a form's part drops both).
        (Some("image/png;charset=utf-8"), "image/png;charset=utf-8"),
        (Some("Image/PNG"), "Image/PNG"),
        (None, "application/octet-stream"),
        (Some(""), "application/octet-stream"),
        // Only `multipart/form-data` itself makes a form.
        (
            Some("Multipart/Form-Data; boundary=b"),
            "Multipart/Form-Data; boundary=b",
        ),
    ] {
        let headers: Vec<(&str, &str)> = header.map(|h| ("content-type", h)).into_iter().collect();
        let answer = s.raw(CONTACT, &key(1), &headers, Body::from(PNG)).await;
        assert_eq!(
            answer.body,
            error(
                "415",
                "invalid_mime_type",
                &format!("mime type {shown} is not supported"),
                "InvalidMimeType"
            ),
            "{header:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_raw_bodys_headers_are_checked_in_the_servers_order_before_a_byte_is_read() {
    let s = Scratch::new("raw-order");
    // A body that never comes: each answer is decided by the headers alone.
    let never =
        || Body::from_stream(futures_util::stream::pending::<Result<Bytes, std::io::Error>>());
    let huge = (LIMIT + 1).to_string();
    let length = ("content-length", huge.as_str());
    for (name, key, headers, code) in [
        (
            "the type before the length",
            key(1),
            vec![("content-type", "image/heic"), length],
            "InvalidMimeType",
        ),
        (
            "the length before the key",
            "public/a~b.png".to_string(),
            vec![("content-type", "image/png"), length],
            "EntityTooLarge",
        ),
        (
            "the length before the policy",
            "private/1700000000000_a.png".to_string(),
            vec![("content-type", "image/png"), length],
            "EntityTooLarge",
        ),
        (
            "the key before the policy",
            "private/a~b.png".to_string(),
            vec![("content-type", "image/png")],
            "InvalidKey",
        ),
        (
            "the policy before the upsert",
            key(2),
            vec![("content-type", "image/png"), ("x-upsert", "true")],
            "AccessDenied",
        ),
    ] {
        let answer = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            s.raw(CONTACT, &key, &headers, never()),
        )
        .await
        .unwrap_or_else(|_| panic!("{name}: the answer waited for the body"));
        let json: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        assert_eq!(json["code"], code, "{name}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_raw_body_cut_short_stores_nothing() {
    let s = Scratch::new("raw-cut");
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = vec![
        Ok(png_of(1000)),
        Err(std::io::Error::other("the client went away")),
    ];
    let answer = s
        .raw(
            CONTACT,
            &key(1),
            &[("content-type", "image/png"), ("content-length", "2000")],
            Body::from_stream(futures_util::stream::iter(chunks)),
        )
        .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{}", answer.body);
    assert!(!s.stored(CONTACT, &key(1)));
    assert!(s.nothing_left_over());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_raw_cv_goes_only_into_a_posting_that_takes_applications_unless_the_service_key_sends_it()
{
    let s = Scratch::new("raw-applications");
    let pdf = ("content-type", "application/pdf");
    let open = "open-job/1700000000000_cv.pdf";
    let closed = "closed-job/1700000000000_cv.pdf";
    let answer = s.raw("applications", open, &[pdf], Body::from(PDF)).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let answer = s.raw("applications", closed, &[pdf], Body::from(PDF)).await;
    assert_eq!(
        answer.body,
        error(
            "403",
            "Unauthorized",
            "new row violates row-level security policy",
            "AccessDenied"
        )
    );
    let service = format!("Bearer {SERVICE}");
    let answer = s
        .send(
            Request::post(format!("/storage/v1/object/applications/{closed}"))
                .header("authorization", &service)
                .header("content-type", "application/pdf")
                .body(Body::from(PDF))
                .unwrap(),
        )
        .await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let read = s
        .send(
            Request::get(format!(
                "/storage/v1/object/authenticated/applications/{closed}"
            ))
            .header("authorization", &service)
            .body(Body::empty())
            .unwrap(),
        )
        .await;
    assert_eq!(&read.bytes[..], PDF);
    assert_eq!(read.header("content-type"), "application/pdf");
    // A picture is not a CV, sent either way.
    let answer = s
        .raw(
            "applications",
            "open-job/1700000000001_cv.png",
            &[("content-type", "image/png")],
            Body::from(PNG),
        )
        .await;
    let form = s
        .form(
            "applications",
            "open-job/1700000000001_cv.png",
            false,
            "image/png",
            PNG,
        )
        .await;
    assert_eq!(answer.body, form.body);
    assert!(answer.body.contains("mime type image/png is not supported"));
}
