//! A long-lived child process spoken to in JSON lines: one request line on its
//! stdin, one reply line on its stdout. The bundler (esbuild) and the server
//! render (React) are both such Node processes.
//!
//! Every exchange has a time limit: a reply that does not come within it stops
//! the process, so code that loops or waits forever cannot hang the build. The
//! replies are read on a thread of their own, which ends with the process.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("could not start {program}: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("the process stopped unexpectedly{0}")]
    Stopped(String),
    #[error("its reply could not be read: {0}")]
    Unreadable(String),
    /// No reply within the limit; the process was stopped.
    #[error("no reply within {}", seconds(*.0))]
    TimedOut(Duration),
}

/// `10 s`, `0.5 s`: a limit as site.yaml writes it.
pub fn seconds(limit: Duration) -> String {
    format!("{} s", limit.as_secs_f64())
}

pub struct Process {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<String>,
}

impl Process {
    /// Starts `command` with piped stdin and stdout; its stderr is ours.
    pub fn spawn(mut command: Command) -> Result<Process, Error> {
        let program = command.get_program().to_string_lossy().to_string();
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| Error::Spawn { program, source })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::Stopped(": no pipes to it".into()));
        };
        let (sender, replies) = mpsc::channel();
        std::thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match stdout.read_line(&mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if sender.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Ok(Process {
            child,
            stdin,
            replies,
        })
    }

    /// Sends one request and waits at most `limit` for its reply. When none
    /// comes, the process is stopped and cannot be used again.
    pub fn exchange<Q: Serialize, R: DeserializeOwned>(
        &mut self,
        request: &Q,
        limit: Duration,
    ) -> Result<R, Error> {
        let mut line =
            serde_json::to_string(request).map_err(|e| Error::Unreadable(e.to_string()))?;
        line.push('\n');
        if let Err(e) = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.flush())
        {
            return Err(self.stopped(Some(e)));
        }
        match self.replies.recv_timeout(limit) {
            Ok(reply) => serde_json::from_str(&reply).map_err(|e| Error::Unreadable(e.to_string())),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.child.kill();
                let _ = self.child.wait();
                Err(Error::TimedOut(limit))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.stopped(None)),
        }
    }

    /// The process ended: how, when it can be told.
    fn stopped(&mut self, write: Option<std::io::Error>) -> Error {
        // The pipe closes a moment before the exit is recorded.
        let mut status = None;
        for _ in 0..20 {
            status = self.child.try_wait().ok().flatten();
            if status.is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        match (status, write) {
            (Some(status), _) => Error::Stopped(format!(" ({status})")),
            (None, Some(e)) => Error::Stopped(format!(": {e}")),
            (None, None) => Error::Stopped(String::new()),
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // Closing stdin ends the loop; kill covers a process that hangs.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
