//! Language registry (being written).
