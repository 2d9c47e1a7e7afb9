//! AFL++ entry point of the `config` target (see `fuzz/README.md`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        hermit_fuzz::config(data);
    });
}
