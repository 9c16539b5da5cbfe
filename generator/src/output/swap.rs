//! Replacing the whole output in one step: the new site is written into a folder
//! beside it, then the two are exchanged, so the output is always one whole build.

use std::path::Path;

use super::Error;
use crate::diagnostics::IoError;

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::Io(IoError::at(path)(e))
}

/// Puts `tmp` in the place of `out`: an atomic exchange where the file system
/// supports it, else two renames; the old output is then removed.
pub fn swap(tmp: &Path, out: &Path) -> Result<(), Error> {
    if !out.exists() {
        return std::fs::rename(tmp, out).map_err(io(out));
    }
    let exchanged = rustix::fs::renameat_with(
        rustix::fs::CWD,
        tmp,
        rustix::fs::CWD,
        out,
        rustix::fs::RenameFlags::EXCHANGE,
    );
    if exchanged.is_ok() {
        // `tmp` now holds the previous output.
        let _ = std::fs::remove_dir_all(tmp);
        return Ok(());
    }
    let old = tmp.with_extension("old");
    let _ = std::fs::remove_dir_all(&old);
    std::fs::rename(out, &old).map_err(io(out))?;
    if let Err(e) = std::fs::rename(tmp, out) {
        let _ = std::fs::rename(&old, out);
        return Err(io(out)(e));
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}
