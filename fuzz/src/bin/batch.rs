//! AFL++ entry point of the `batch` target (see `fuzz/README.md`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hermit_fuzz::batch(data);
    });
}
