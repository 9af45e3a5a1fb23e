//! The getters every class of records has: `size`, `len()` and (most) `ids`,
//! defined once for the batches, the reference and the owners, and the
//! matchers' `size_a` and `size_b` ([`counts`]). Each class keeps its own
//! `#[pymethods]` block; these are a second one, which pyo3's
//! `multiple-pymethods` feature allows (python/Cargo.toml says what it costs).

/// Getters of `$class` that count records: each `$name` is the length of
/// its `$ids` (with `self` named `$s`).
macro_rules! counts {
    ($class:ty, |$s:ident| $($(#[$doc:meta])* $name:ident: $ids:expr),+) => {
        #[pyo3::pymethods]
        impl $class {
            $(
                $(#[$doc])*
                #[getter]
                fn $name(&self) -> usize {
                    let $s = self;
                    $ids.len()
                }
            )+
        }
    };
}

pub(crate) use counts;

/// `size` (the records held), `__len__` (the same) and, given `ids`, the
/// `ids` getter (in order) of `$class`, whose records' ids are `$ids` with
/// `self` named `$s`.
macro_rules! rows {
    ($class:ty, |$s:ident| $ids:expr) => {
        $crate::rows::counts!($class, |$s|
            /// The number of records (`len()` too).
            size: $ids
        );

        #[pyo3::pymethods]
        impl $class {
            fn __len__(&self) -> usize {
                self.size()
            }
        }
    };
    ($class:ty, |$s:ident| $ids:expr, ids) => {
        $crate::rows::rows!($class, |$s| $ids);

        #[pyo3::pymethods]
        impl $class {
            /// The records' ids, in order.
            #[getter]
            fn ids(&self) -> Vec<String> {
                let $s = self;
                $ids.to_vec()
            }
        }
    };
}

pub(crate) use rows;
