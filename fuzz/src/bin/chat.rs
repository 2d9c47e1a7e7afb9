//! AFL++ entry point of the `chat` target (see `fuzz/README.md`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hermit_fuzz::chat(data);
    });
}
