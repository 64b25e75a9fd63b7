//! process stage (being written).
