//! End-to-end sealing (placeholder; being written).
