//! Shell command analysis (pure, total): does a command commit or push, and with which git
//! operations? Leaf module: imports nothing else from this crate.
