//! What the storage targets share: a store in a scratch folder of its own, and
//! the check that nothing was written beside it.

use std::path::{Path, PathBuf};

use site::storage::{policy, Bucket, Store};

/// A store of the production buckets under a fresh scratch folder named `name`.
pub fn scratch_store(name: &str) -> (PathBuf, Store) {
    let base = std::env::temp_dir().join(format!("site-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).expect("a scratch folder");
    let buckets = policy::BUCKETS
        .iter()
        .map(|p| Bucket::from_policy(p))
        .collect();
    let store = Store::new(&base.join("storage"), buckets, "").expect("a store");
    (base, store)
}

/// Fails when anything but the store's folder appeared in `base`, then empties the
/// bucket for the next input.
pub fn nothing_outside(base: &Path, input: &str) {
    let outside: Vec<_> = std::fs::read_dir(base)
        .expect("the scratch folder")
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != "storage")
        .collect();
    assert!(
        outside.is_empty(),
        "{input} wrote outside the store: {outside:?}"
    );
    let _ = std::fs::remove_dir_all(base.join("storage").join("contact-attachments"));
}
