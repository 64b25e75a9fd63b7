//! plan stage (being written).
