//! report stage (being written).
