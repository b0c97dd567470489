//! The wit daemon. (Under construction.)
