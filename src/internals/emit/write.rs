//! Writing generated files: only when their bytes change, or checking that they are fresh.

use crate::emit::GeneratedFile;
use std::io;
use std::path::{Path, PathBuf};

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileStatus {
    /// The file on disk already had these bytes.
    Unchanged,
    /// The file was written (or, in check mode, would be: it is stale).
    Changed,
    /// The file did not exist (or, in check mode, is missing).
    Created,
}

/// Writes every file under `out`, creating folders, and skipping files whose bytes are
/// already right so their modification time (and anything that rebuilds on it) stays put.
pub fn write_all(out: &Path, files: &[GeneratedFile]) -> io::Result<Vec<(PathBuf, FileStatus)>> {
    let mut report = Vec::new();
    for f in files {
        let path = out.join(&f.path);
        let status = status_of(&path, &f.contents)?;
        if status != FileStatus::Unchanged {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, &f.contents)?;
        }
        report.push((path, status));
    }
    Ok(report)
}

/// Compares every file with what is on disk under `out`, writing nothing.
pub fn check_all(out: &Path, files: &[GeneratedFile]) -> io::Result<Vec<(PathBuf, FileStatus)>> {
    files
        .iter()
        .map(|f| {
            let path = out.join(&f.path);
            status_of(&path, &f.contents).map(|s| (path, s))
        })
        .collect()
}

fn status_of(path: &Path, contents: &str) -> io::Result<FileStatus> {
    match std::fs::read(path) {
        Ok(bytes) if bytes == contents.as_bytes() => Ok(FileStatus::Unchanged),
        Ok(_) => Ok(FileStatus::Changed),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(FileStatus::Created),
        Err(e) => Err(e),
    }
}
