//! The `bodies` target: its input format and the properties it checks are
//! `nameserver_fuzz_checks::bodies`'s, which the smoke test also runs on stable.

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nameserver_fuzz_checks::bodies::run(data));
