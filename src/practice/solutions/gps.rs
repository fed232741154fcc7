//! The solutions of this part.
