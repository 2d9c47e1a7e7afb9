//! How fast this machine's file system creates what a partition directory
//! needs, with nothing of HermitMQ around it: the ceiling on topic creation
//! for any layout with a file (or a directory and a file) per topic
//! (STORAGE.md §2.5).
//!
//! ```sh
//! cargo run --release -p hermit-benches --example fs_create -- DIR [N] [dir|file] [SYNC_EVERY]
//! ```
//!
//! Creates N (default 50,000) entries spread over 256 subdirectories of DIR
//! (which must not exist): with `dir` (the default) a directory holding a
//! file per entry, with `file` a file per entry; each file gets 60 bytes.
//! Every SYNC_EVERY entries (default 128; 0: only at the end) one `syncfs`
//! makes them durable, as the broker's group commit would. Prints entries
//! per second.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let base = PathBuf::from(
        args.next()
            .ok_or_else(|| anyhow::anyhow!("usage: fs_create DIR [N] [dir|file] [SYNC_EVERY]"))?,
    );
    let n: u64 = args.next().map_or(Ok(50_000), |a| a.parse())?;
    let with_dir = match args.next().as_deref() {
        None | Some("dir") => true,
        Some("file") => false,
        Some(other) => anyhow::bail!("expected dir or file, not {other}"),
    };
    let sync_every: u64 = args.next().map_or(Ok(128), |a| a.parse())?;
    anyhow::ensure!(!base.exists(), "{} exists", base.display());
    fs::create_dir(&base)?;
    for s in 0..256 {
        fs::create_dir(base.join(format!("{s:02x}")))?;
    }
    let root = fs::File::open(&base)?;
    let start = Instant::now();
    for i in 0..n {
        let shard = base.join(format!("{:02x}", i % 256));
        let path = if with_dir {
            let d = shard.join(format!("t{i}"));
            fs::create_dir(&d)?;
            d.join("00000000000000000000.log")
        } else {
            shard.join(format!("t{i}.log"))
        };
        let mut f = OpenOptions::new()
            .create(true)
            .truncate(true)
            .write(true)
            .open(&path)?;
        f.write_all(&[7u8; 60])?;
        if sync_every > 0 && i % sync_every == sync_every - 1 {
            rustix::fs::syncfs(&root)?;
        }
    }
    rustix::fs::syncfs(&root)?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} {n} entries, syncfs every {sync_every}: {:.0} per second",
        if with_dir { "dir+file" } else { "file" },
        n as f64 / secs
    );
    Ok(())
}
