//! Any object key: refused, or stored inside its bucket's folder and read back.
//! Nothing may ever be written outside the storage folder.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use site::storage::{validate_key, Store};
use site_fuzz::{nothing_outside, scratch_store};

struct Fixture {
    base: PathBuf,
    store: Store,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let (base, store) = scratch_store("key");
        Fixture { base, store }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(key) = std::str::from_utf8(data) else {
        return;
    };
    let Fixture { base, store } = fixture();
    let Ok(bucket) = store.bucket("contact-attachments") else {
        return;
    };
    let valid = validate_key(key).is_ok();
    let stored = (|| {
        if store.exists(bucket, key).ok()? {
            return None;
        }
        let mut upload = store.begin(bucket, key).ok()?;
        upload.write(b"\x89PNG\r\n\x1a\n").ok()?;
        upload.commit("image/png", "no-cache").ok()
    })();
    assert!(
        valid || stored.is_none(),
        "an invalid key was stored: {key:?}"
    );
    if stored.is_some() {
        let (meta, data) = store.get(bucket, key).expect("a stored object reads back");
        assert_eq!(meta.size, 8);
        assert!(data.starts_with(base.join("storage").join("contact-attachments")));
    }
    nothing_outside(base, &format!("{key:?}"));
});
