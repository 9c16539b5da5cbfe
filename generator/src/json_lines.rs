//! A long-lived child process spoken to in JSON lines: one request line on its
//! stdin, one reply line on its stdout. The bundler (esbuild) and the server
//! render (React) are both such Node processes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

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
}

pub struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
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
        Ok(Process {
            child,
            stdin,
            stdout: BufReader::new(stdout),
        })
    }

    /// Sends one request and reads its reply.
    pub fn exchange<Q: Serialize, R: DeserializeOwned>(&mut self, request: &Q) -> Result<R, Error> {
        let mut line =
            serde_json::to_string(request).map_err(|e| Error::Unreadable(e.to_string()))?;
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.flush())
            .map_err(|e| Error::Stopped(format!(": {e}")))?;
        let mut reply = String::new();
        match self.stdout.read_line(&mut reply) {
            Ok(0) | Err(_) => return Err(Error::Stopped(String::new())),
            Ok(_) => {}
        }
        serde_json::from_str(&reply).map_err(|e| Error::Unreadable(e.to_string()))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // Closing stdin ends the loop; kill covers a process that hangs.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
