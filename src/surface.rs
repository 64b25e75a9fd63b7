//! Predicts the content a commit or push would carry, per repository.
