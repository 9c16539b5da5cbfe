//! The built-in object storage of `site serve`: the subset of the Supabase Storage
//! API the contact form uses (see `http.rs` for the wire protocol), kept on disk
//! under `.site/storage/<bucket>/`.
//!
//! An object is a folder `<key>~object/` holding `data` and `meta.json`. It is
//! assembled in `.site/storage/.tmp/` and renamed into place with no-replace, so a
//! finished object appears whole, an existing key is never overwritten (even when
//! two uploads race), and a failed upload leaves nothing behind. `~` cannot occur
//! in a valid key, so object folders never collide with key prefixes.

pub mod http;
pub mod policy;

use std::path::{Path, PathBuf};

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use policy::BucketPolicy;

/// A bucket, its limits and its upload policy, all enforced by the server itself.
#[derive(Debug, Clone)]
pub struct Bucket {
    pub name: String,
    pub public: bool,
    pub size_limit: u64,
    pub allowed_types: Vec<String>,
    policy: &'static BucketPolicy,
}

impl Bucket {
    /// A bucket as the production project has it (`policy.rs`).
    pub fn from_policy(policy: &'static BucketPolicy) -> Bucket {
        Bucket {
            name: policy.name.to_string(),
            public: policy.public,
            size_limit: policy.file_size_limit,
            allowed_types: policy
                .allowed_mime_types
                .iter()
                .map(|t| t.to_string())
                .collect(),
            policy,
        }
    }

    /// Whether the public may upload a new object at `key` (row-level
    /// security), the postings that take applications being `open`.
    pub fn permits_insert(&self, key: &str, open: &OpenPostings) -> bool {
        self.policy.permits_insert(key)
            && (!self.policy.open_postings_only || (open.0)(key.split('/').next().unwrap_or("")))
    }

    /// The server's rule: exact `type/subtype`, or `type/*`.
    pub fn allows(&self, mime: &str) -> bool {
        if self.allowed_types.is_empty() {
            return true;
        }
        self.allowed_types
            .iter()
            .any(|allowed| match allowed.strip_suffix("/*") {
                Some(family) => mime.split('/').next() == Some(family),
                None => allowed == mime,
            })
    }
}

/// What is kept beside an object's bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    pub id: String,
    pub content_type: String,
    pub cache_control: String,
    pub size: u64,
    pub etag: String,
    pub created: u64,
}

/// The errors of the storage API, each with the real server's status and names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorageError {
    #[error("headers must have required property 'authorization'")]
    NoAuthorization,
    #[error("{0}")]
    AccessDenied(String),
    #[error("Bucket not found")]
    NoSuchBucket,
    #[error("Object not found")]
    NoSuchKey,
    #[error("Invalid key: {0}")]
    InvalidKey(String),
    #[error("mime type {0} is not supported")]
    InvalidMimeType(String),
    #[error("the file's content is not {0}")]
    ContentMismatch(String),
    #[error("The resource already exists")]
    Duplicate,
    #[error("The object exceeded the maximum allowed size")]
    TooLarge,
    #[error("the form field `{0}` is longer than {limit} bytes", limit = http::FIELD_LIMIT)]
    FieldTooLarge(String),
    #[error("No content provided")]
    NoContent,
    #[error("{0}")]
    BadRequest(String),
    #[error("Internal Server Error")]
    Internal(String),
}

/// Whether `key` is a valid object key: the server's character set (ASCII only),
/// and no empty, `.` or `..` segment (the file backend's rule).
pub fn validate_key(key: &str) -> Result<Vec<&str>, StorageError> {
    const SYMBOLS: &str = "_/!.*'() &$=@;:+,?-";
    let valid_chars = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || SYMBOLS.contains(c));
    let segments: Vec<&str> = key.split('/').collect();
    let valid_segments = segments
        .iter()
        .all(|s| !s.is_empty() && *s != "." && *s != ".." && s.len() <= 200);
    if valid_chars && valid_segments && key.len() <= 1024 {
        Ok(segments)
    } else {
        Err(StorageError::InvalidKey(key.to_string()))
    }
}

/// The leading bytes each accepted type must start with.
pub fn content_matches(mime: &str, head: &[u8]) -> bool {
    match mime {
        "image/png" => head.starts_with(b"\x89PNG\r\n\x1a\n"),
        "image/jpeg" => head.starts_with(&[0xFF, 0xD8, 0xFF]),
        "image/gif" => head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a"),
        "application/pdf" => head.starts_with(b"%PDF-"),
        policy::DOCX => head.starts_with(b"PK\x03\x04"),
        _ => true,
    }
}

/// Whether a whole file is what its type says, beyond its leading bytes: a
/// Word document is a ZIP holding `[Content_Types].xml` and `word/document.xml`
/// (any other ZIP renamed `.docx` is not one).
pub fn whole_content_matches(mime: &str, file: std::fs::File) -> bool {
    if mime != policy::DOCX {
        return true;
    }
    match zip::ZipArchive::new(std::io::BufReader::new(file)) {
        Ok(archive) => {
            let names: Vec<String> = archive
                .file_names()
                .filter_map(Result::ok)
                .map(|n| n.into_owned())
                .collect();
            let has = |name: &str| names.iter().any(|n| n == name);
            has("[Content_Types].xml") && has("word/document.xml")
        }
        Err(_) => false,
    }
}

#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    pub buckets: Vec<Bucket>,
    pub anon_key: String,
    /// The key that reads private buckets (`.site/storage/service-role-key`,
    /// made on first use); empty for none.
    pub service_key: String,
    /// Whether a job posting takes applications now, for a bucket whose
    /// folders must be such postings (`open_postings_only`).
    pub takes_applications: OpenPostings,
}

/// Whether the posting of a folder takes applications now: by default none does.
#[derive(Clone)]
pub struct OpenPostings(pub std::sync::Arc<dyn Fn(&str) -> bool + Send + Sync>);

impl Default for OpenPostings {
    fn default() -> OpenPostings {
        OpenPostings(std::sync::Arc::new(|_| false))
    }
}

impl std::fmt::Debug for OpenPostings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OpenPostings")
    }
}

/// The service role's key of the storage in `dir`: `SITE_SERVICE_ROLE_KEY`, else
/// the one kept in `dir/service-role-key`, else a new random one kept there,
/// readable by its owner only.
pub fn service_key(dir: &Path) -> std::io::Result<String> {
    if let Ok(key) = std::env::var("SITE_SERVICE_ROLE_KEY") {
        if !key.trim().is_empty() {
            return Ok(key.trim().to_string());
        }
    }
    let path = dir.join("service-role-key");
    if let Ok(key) = std::fs::read_to_string(&path) {
        if !key.trim().is_empty() {
            return Ok(key.trim().to_string());
        }
    }
    std::fs::create_dir_all(dir)?;
    let key = format!("local-service-{}", uuid::Uuid::new_v4().simple());
    std::fs::write(&path, &key)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(key)
}

impl Store {
    pub fn new(dir: &Path, buckets: Vec<Bucket>, anon_key: &str) -> std::io::Result<Store> {
        std::fs::create_dir_all(dir)?;
        // Parts of uploads cut short by a stopped server.
        let _ = std::fs::remove_dir_all(dir.join(".tmp"));
        std::fs::create_dir_all(dir.join(".tmp"))?;
        for bucket in &buckets {
            std::fs::create_dir_all(dir.join(&bucket.name))?;
        }
        Ok(Store {
            dir: dir.to_path_buf(),
            buckets,
            anon_key: anon_key.to_string(),
            service_key: String::new(),
            takes_applications: OpenPostings::default(),
        })
    }

    pub fn buckets(&self) -> impl Iterator<Item = &Bucket> {
        self.buckets.iter()
    }

    pub fn bucket(&self, name: &str) -> Result<&Bucket, StorageError> {
        self.buckets
            .iter()
            .find(|b| b.name == name)
            .ok_or(StorageError::NoSuchBucket)
    }

    /// The folder of an object; the key is validated, so the path stays inside its bucket.
    fn object_dir(&self, bucket: &Bucket, key: &str) -> Result<PathBuf, StorageError> {
        local_file(&self.dir, &bucket.name, key)
            .and_then(|data| data.parent().map(Path::to_path_buf))
            .ok_or_else(|| StorageError::InvalidKey(key.into()))
    }

    pub fn exists(&self, bucket: &Bucket, key: &str) -> Result<bool, StorageError> {
        Ok(self.object_dir(bucket, key)?.join("meta.json").is_file())
    }

    /// Starts an upload: a fresh folder in `.tmp/`, removed unless committed.
    pub fn begin(&self, bucket: &Bucket, key: &str) -> Result<Upload, StorageError> {
        let target = self.object_dir(bucket, key)?;
        let tmp = self.dir.join(".tmp").join(uuid::Uuid::new_v4().to_string());
        std::fs::create_dir_all(&tmp).map_err(internal)?;
        let file = std::fs::File::create(tmp.join("data")).map_err(internal)?;
        Ok(Upload {
            tmp,
            target,
            file: Some(file),
            size: 0,
            md5: Md5::new(),
            committed: false,
        })
    }

    pub fn get(&self, bucket: &Bucket, key: &str) -> Result<(Meta, PathBuf), StorageError> {
        let dir = self
            .object_dir(bucket, key)
            .map_err(|_| StorageError::NoSuchKey)?;
        let meta =
            std::fs::read_to_string(dir.join("meta.json")).map_err(|_| StorageError::NoSuchKey)?;
        let meta: Meta =
            serde_json::from_str(&meta).map_err(|e| StorageError::Internal(e.to_string()))?;
        Ok((meta, dir.join("data")))
    }
}

/// Where the object at `key` of `bucket` keeps its bytes under `dir`
/// (`.site/storage/`), if `key` is a valid key.
pub fn local_file(dir: &Path, bucket: &str, key: &str) -> Option<PathBuf> {
    let segments = validate_key(key).ok()?;
    let (last, parents) = segments.split_last()?;
    let mut path = dir.join(bucket);
    path.extend(parents);
    path.push(format!("{last}~object"));
    Some(path.join("data"))
}

fn internal(e: std::io::Error) -> StorageError {
    StorageError::Internal(e.to_string())
}

/// An upload in progress. Dropping it without `commit` removes what was written.
pub struct Upload {
    tmp: PathBuf,
    target: PathBuf,
    file: Option<std::fs::File>,
    size: u64,
    md5: Md5,
    committed: bool,
}

impl Upload {
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether the bytes written are, whole, what `mime` says.
    pub fn is_whole(&mut self, mime: &str) -> Result<bool, StorageError> {
        if let Some(file) = self.file.as_mut() {
            use std::io::Write;
            file.flush().map_err(internal)?;
        }
        let file = std::fs::File::open(self.tmp.join("data")).map_err(internal)?;
        Ok(whole_content_matches(mime, file))
    }

    pub fn write(&mut self, chunk: &[u8]) -> Result<(), StorageError> {
        use std::io::Write;
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| StorageError::Internal("upload closed".into()))?;
        file.write_all(chunk).map_err(internal)?;
        self.md5.update(chunk);
        self.size += chunk.len() as u64;
        Ok(())
    }

    /// Moves the object into place; fails with `Duplicate` if the key now exists.
    pub fn commit(mut self, content_type: &str, cache_control: &str) -> Result<Meta, StorageError> {
        if let Some(file) = self.file.take() {
            file.sync_all().map_err(internal)?;
        }
        let digest = std::mem::take(&mut self.md5).finalize();
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        let meta = Meta {
            id: uuid::Uuid::new_v4().to_string(),
            content_type: content_type.to_string(),
            cache_control: cache_control.to_string(),
            size: self.size,
            etag: format!("\"{hex}\""),
            created: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        };
        let text =
            serde_json::to_string(&meta).map_err(|e| StorageError::Internal(e.to_string()))?;
        std::fs::write(self.tmp.join("meta.json"), text).map_err(internal)?;
        if let Some(parent) = self.target.parent() {
            std::fs::create_dir_all(parent).map_err(internal)?;
        }
        // No-replace: of two racing uploads of one key, exactly one wins.
        match rustix::fs::renameat_with(
            rustix::fs::CWD,
            &self.tmp,
            rustix::fs::CWD,
            &self.target,
            rustix::fs::RenameFlags::NOREPLACE,
        ) {
            Ok(()) => {
                self.committed = true;
                Ok(meta)
            }
            Err(rustix::io::Errno::EXIST) | Err(rustix::io::Errno::NOTEMPTY) => {
                Err(StorageError::Duplicate)
            }
            Err(e) => Err(StorageError::Internal(e.to_string())),
        }
    }
}

impl Drop for Upload {
    fn drop(&mut self) {
        if !self.committed {
            self.file = None;
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_servers_rule() {
        for ok in [
            "public/1700000000000_photo.png",
            "a b/c (1).png",
            "x!*'();:@&=+$,?.-_",
        ] {
            assert!(validate_key(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "a%20b", "ñ.png", "a#b", "a\\b", "a~b", "../x", "a/./b", "a//b", "/a", "a\tb",
            "a|b",
        ] {
            assert_eq!(
                validate_key(bad),
                Err(StorageError::InvalidKey(bad.into())),
                "{bad}"
            );
        }
    }

    #[test]
    fn mime_types_match_exactly_or_by_family() {
        let bucket = Bucket::from_policy(&policy::CONTACT_ATTACHMENTS);
        assert!(bucket.allows("image/png"));
        assert!(!bucket.allows("image/heic"));
        assert!(!bucket.allows("image/png; charset=binary"));
        let any_image = Bucket {
            allowed_types: vec!["image/*".into()],
            ..bucket
        };
        assert!(any_image.allows("image/heic"));
        assert!(!any_image.allows("text/plain"));
    }

    #[test]
    fn leading_bytes_must_match_the_claimed_type() {
        assert!(content_matches("image/png", b"\x89PNG\r\n\x1a\n...."));
        assert!(!content_matches("image/png", b"%PDF-1.7"));
        assert!(content_matches("image/gif", b"GIF89a.."));
        assert!(content_matches("image/jpeg", &[0xFF, 0xD8, 0xFF, 0xE0]));
        assert!(!content_matches("image/jpeg", b"GIF89a"));
    }

    #[test]
    fn an_existing_key_is_never_overwritten_and_failed_uploads_leave_nothing() {
        let dir = std::env::temp_dir().join(format!("site-storage-test-{}", std::process::id()));
        let store = Store::new(
            &dir,
            vec![Bucket::from_policy(&policy::CONTACT_ATTACHMENTS)],
            "k",
        )
        .unwrap();
        let bucket = store.bucket("contact-attachments").unwrap().clone();

        let mut first = store.begin(&bucket, "public/a.png").unwrap();
        let mut second = store.begin(&bucket, "public/a.png").unwrap();
        first.write(b"first").unwrap();
        second.write(b"second").unwrap();
        assert!(first.commit("image/png", "max-age=3600").is_ok());
        assert_eq!(
            second.commit("image/png", "max-age=3600").unwrap_err(),
            StorageError::Duplicate
        );
        let (meta, data) = store.get(&bucket, "public/a.png").unwrap();
        assert_eq!(std::fs::read(data).unwrap(), b"first");
        assert_eq!(meta.size, 5);

        let mut dropped = store.begin(&bucket, "public/b.png").unwrap();
        dropped.write(b"partial").unwrap();
        drop(dropped);
        assert!(!store.exists(&bucket, "public/b.png").unwrap());
        assert_eq!(std::fs::read_dir(dir.join(".tmp")).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
