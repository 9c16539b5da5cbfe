//! `site serve`'s stand-in for the forms' tables of the Supabase project: the
//! PostgREST insert (`http.rs`), deciding each row by the table's description
//! (`crate::forms`), and an inbox per table that keeps each accepted row as one
//! JSON file under `.site/<rows>/` (`.site/messages/`, `.site/applications/`).
//!
//! A row's file is written whole in `.site/<rows>/.tmp/` and renamed into
//! place, so a reader never sees half of one and a stopped server leaves none.

pub mod http;

pub use http::LocalAddr;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::forms::postgres::Value;
use crate::forms::table::{Table, SEND_KEY};

/// A stored row: every column, by name.
pub type Row = BTreeMap<String, Value>;

#[derive(Debug)]
pub struct Inbox {
    pub table: &'static Table,
    dir: PathBuf,
    /// Recent accepted messages per rate-limit key, oldest first.
    recent: Mutex<Recent>,
    /// The stored rows by their send key, as the table's unique index has them.
    /// Held from a request's first look at its keys to its rows' storing, as
    /// the trigger's lock on a key is held to the commit.
    pub sent: Mutex<HashMap<String, Row>>,
}

#[derive(Debug, thiserror::Error)]
pub enum InboxError {
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("{0} is not a stored row: {1}")]
    Parse(PathBuf, serde_json::Error),
}

impl Inbox {
    /// Where the site at `root` keeps `table`'s rows: `.site/messages/`.
    pub fn dir(root: &Path, table: &Table) -> PathBuf {
        root.join(".site").join(table.rows)
    }

    /// The inbox of `table` of the site at `root`.
    pub fn open(root: &Path, table: &'static Table) -> Result<Inbox, InboxError> {
        let dir = Inbox::dir(root, table);
        let tmp = dir.join(".tmp");
        // Parts of messages cut short by a stopped server.
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir_all(&tmp).map_err(|e| InboxError::Write(tmp.clone(), e))?;
        let sent = Inbox::list(root, table)?
            .into_iter()
            .filter_map(|row| match row.get(SEND_KEY.name) {
                Some(Value::Text(key)) => Some((key.clone(), row)),
                _ => None,
            })
            .collect();
        Ok(Inbox {
            table,
            dir,
            recent: Mutex::new(Recent::default()),
            sent: Mutex::new(sent),
        })
    }

    /// Whether the messages of a request, each with its rate-limit keys, may all
    /// come now: no key reaches the table's rate limit in the last window. Else
    /// the first key, in the trigger's order, that would pass it.
    pub fn may_admit(&self, rows: &[Vec<String>], now: Instant) -> Result<(), String> {
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent.forget_old(now, self.limits().1);
        recent.within_limit(rows, now, self.limits())
    }

    fn limits(&self) -> (usize, Duration) {
        let spam = &self.table.spam;
        (spam.rate_limit, Duration::from_secs(spam.window_seconds))
    }

    /// As [`Inbox::may_admit`], and when they may, they are counted.
    pub fn admit(&self, rows: &[Vec<String>], now: Instant) -> Result<(), String> {
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        recent.forget_old(now, self.limits().1);
        recent.within_limit(rows, now, self.limits())?;
        for key in rows.iter().flatten() {
            recent.sends.entry(key.clone()).or_default().push_back(now);
        }
        Ok(())
    }

    /// Writes `row` as `<received_at>_<id>.json`, atomically.
    pub fn store(&self, row: &Row) -> Result<PathBuf, InboxError> {
        let field = |name: &str| {
            row.get(name)
                .and_then(Value::text)
                .unwrap_or("")
                .to_string()
        };
        let stamp: String = field("received_at")
            .chars()
            .map(|c| if c == ':' { '-' } else { c })
            .collect();
        let name = format!("{stamp}_{}.json", field("id"));
        let target = self.dir.join(&name);
        let tmp = self.dir.join(".tmp").join(&name);
        let text =
            serde_json::to_string_pretty(row).map_err(|e| InboxError::Parse(target.clone(), e))?;
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            let mut file = std::fs::File::create(&tmp)?;
            file.write_all(text.as_bytes())?;
            file.write_all(b"\n")?;
            file.sync_all()?;
            std::fs::rename(&tmp, &target)
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            InboxError::Write(target.clone(), e)
        })?;
        Ok(target)
    }

    /// Every stored row of `table`, oldest first.
    pub fn list(root: &Path, table: &Table) -> Result<Vec<Row>, InboxError> {
        let dir = Inbox::dir(root, table);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(InboxError::Read(dir, e)),
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        // The names start with the time received.
        paths.sort();
        paths
            .into_iter()
            .map(|path| {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| InboxError::Read(path.clone(), e))?;
                serde_json::from_str(&text).map_err(|e| InboxError::Parse(path, e))
            })
            .collect()
    }
}

/// The rate limit's memory: when each key's recent messages came, oldest first.
#[derive(Debug, Default)]
struct Recent {
    sends: HashMap<String, VecDeque<Instant>>,
    /// When the whole map was last swept of what left the window.
    swept: Option<Instant>,
}

/// The most senders remembered at once. Past it (a flood of forged
/// X-Forwarded-For addresses, say) the half least recently heard from are
/// forgotten, so memory stays bounded whatever arrives.
const MAX_SENDERS: usize = 100_000;
/// How often the whole map is swept; in between, each key is counted within the
/// window by itself, so a request costs the same however many senders there are.
const SWEEP_EVERY: Duration = Duration::from_secs(60);

impl Recent {
    /// Forgets what has left the window (every minute, or when the map is full),
    /// and past [`MAX_SENDERS`] the senders least recently heard from.
    fn forget_old(&mut self, now: Instant, window: Duration) {
        let due = self
            .swept
            .is_none_or(|at| now.saturating_duration_since(at) >= SWEEP_EVERY);
        if !due && self.sends.len() <= MAX_SENDERS {
            return;
        }
        self.swept = Some(now);
        self.sends.retain(|_, times| {
            while times
                .front()
                .is_some_and(|t| now.saturating_duration_since(*t) >= window)
            {
                times.pop_front();
            }
            !times.is_empty()
        });
        if self.sends.len() > MAX_SENDERS {
            let mut last_heard: Vec<(Instant, String)> = self
                .sends
                .iter()
                .filter_map(|(k, t)| t.back().map(|at| (*at, k.clone())))
                .collect();
            last_heard.sort_unstable();
            let excess = self.sends.len() - MAX_SENDERS / 2;
            for (_, key) in last_heard.into_iter().take(excess) {
                self.sends.remove(&key);
            }
        }
    }

    /// `key`'s messages within the window before `now`.
    fn count(&self, key: &str, now: Instant, window: Duration) -> usize {
        self.sends.get(key).map_or(0, |times| {
            let expired = times.partition_point(|t| now.saturating_duration_since(*t) >= window);
            times.len() - expired
        })
    }

    /// Counts the request's messages key by key, in order, as the trigger does
    /// row by row; the first key past the limit, if any.
    fn within_limit(
        &self,
        rows: &[Vec<String>],
        now: Instant,
        (limit, window): (usize, Duration),
    ) -> Result<(), String> {
        let mut wanted: HashMap<&String, usize> = HashMap::new();
        for key in rows.iter().flatten() {
            let n = wanted.entry(key).or_default();
            *n += 1;
            if self.count(key, now, window) + *n > limit {
                return Err(key.clone());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inbox_knows_its_stored_sends_and_reads_rows_from_before_the_key() {
        let dir = std::env::temp_dir().join(format!("site-inbox-keys-{}", std::process::id()));
        let table = &crate::forms::contact::CONTACT_MESSAGES;
        let inbox = Inbox::open(&dir, table).unwrap();
        let row = |id: &str, key: Option<&str>| {
            let mut row = Row::new();
            row.insert("id".into(), Value::Text(id.into()));
            row.insert(
                "received_at".into(),
                Value::Text(format!("2026-11-29T00:00:0{id}Z")),
            );
            if let Some(key) = key {
                row.insert(SEND_KEY.name.into(), Value::Text(key.into()));
            }
            row
        };
        let key = "3f2a9c1e-0b4d-4e8f-9a7b-6c5d4e3f2a1b";
        inbox.store(&row("1", None)).unwrap();
        inbox.store(&row("2", Some(key))).unwrap();
        // A server started again finds the sends already stored.
        let again = Inbox::open(&dir, table).unwrap();
        let sent = again.sent.lock().unwrap();
        assert_eq!(sent.keys().collect::<Vec<_>>(), [key]);
        assert_eq!(
            Inbox::list(&dir, table).unwrap().len(),
            2,
            "the row without a key reads as before"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_sender_may_send_the_limit_in_a_window_and_no_more() {
        let dir = std::env::temp_dir().join(format!("site-inbox-test-{}", std::process::id()));
        let inbox = Inbox::open(&dir, &crate::forms::contact::CONTACT_MESSAGES).unwrap();
        let (limit, window) = inbox.limits();
        let start = Instant::now();
        let keys = vec![vec!["address:a".to_string(), "email:x".to_string()]];
        for _ in 0..limit {
            assert_eq!(inbox.may_admit(&keys, start), Ok(()));
            assert_eq!(inbox.admit(&keys, start), Ok(()));
        }
        assert_eq!(inbox.may_admit(&keys, start), Err("address:a".into()));
        assert_eq!(inbox.admit(&keys, start), Err("address:a".into()));
        // Another address with the same e-mail is refused too; another of both is not.
        let same_email = [vec!["address:b".into(), "email:x".into()]];
        assert_eq!(inbox.admit(&same_email, start), Err("email:x".into()));
        assert_eq!(
            inbox.admit(&[vec!["address:b".into(), "email:y".into()]], start),
            Ok(())
        );
        // A request of several messages counts each.
        let batch = vec![vec!["address:c".to_string()]; limit + 1];
        assert_eq!(inbox.admit(&batch, start), Err("address:c".into()));
        let later = start + window;
        assert_eq!(inbox.admit(&keys, later), Ok(()));
        // Only current senders are remembered.
        assert_eq!(inbox.recent.lock().unwrap().sends.len(), 2);
        // And never more than MAX_SENDERS of them.
        let flood: Vec<Vec<String>> = (0..=MAX_SENDERS)
            .map(|i| vec![format!("address:{i}")])
            .collect();
        for (i, sender) in flood.iter().enumerate() {
            let at = later + Duration::from_millis(i as u64);
            assert_eq!(inbox.admit(std::slice::from_ref(sender), at), Ok(()));
        }
        let remembered = inbox.recent.lock().unwrap().sends.len();
        assert!(remembered <= MAX_SENDERS, "{remembered}");
        // The most recent are the ones kept.
        let last = format!("address:{MAX_SENDERS}");
        assert!(inbox.recent.lock().unwrap().sends.contains_key(&last));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
