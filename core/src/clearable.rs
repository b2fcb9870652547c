//! [`Clearable`]: the typed value of an optional field whose `null` means "clear it".

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An optional, nullable value in three states, as an update tool receives it: left out
/// (keep what is stored), `null` (clear it), or a value (set it).
///
/// A generated input struct uses it for a field the spec marks `nullable: true` and not
/// required, with `#[serde(default, skip_serializing_if = "Clearable::is_keep")]`, so all
/// three states survive a round trip:
///
/// ```
/// use serde::Deserialize;
/// use toolspec_runtime::prelude::Clearable;
///
/// #[derive(Deserialize)]
/// struct Update {
///     #[serde(default)]
///     milestone: Clearable<u64>,
/// }
/// let read = |json: &str| serde_json::from_str::<Update>(json).unwrap().milestone;
/// assert_eq!(read("{}"), Clearable::Keep);
/// assert_eq!(read(r#"{"milestone": null}"#), Clearable::Clear);
/// assert_eq!(read(r#"{"milestone": 3}"#), Clearable::Set(3));
/// assert_eq!(read(r#"{"milestone": 3}"#).change(), Some(Some(&3)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Clearable<T> {
    /// Left out: leave the stored value as it is.
    #[default]
    Keep,
    /// Sent as `null`: remove the stored value.
    Clear,
    /// Sent with a value: store it.
    Set(T),
}

impl<T> Clearable<T> {
    /// Whether the field was left out (for `skip_serializing_if`).
    pub fn is_keep(&self) -> bool {
        matches!(self, Clearable::Keep)
    }

    /// The change to make: `None` to keep, `Some(None)` to clear, `Some(Some(v))` to set.
    pub fn change(&self) -> Option<Option<&T>> {
        match self {
            Clearable::Keep => None,
            Clearable::Clear => Some(None),
            Clearable::Set(v) => Some(Some(v)),
        }
    }

    /// Applies the change to `stored`: keeps, clears or replaces it.
    pub fn apply_to(self, stored: &mut Option<T>) {
        match self {
            Clearable::Keep => {}
            Clearable::Clear => *stored = None,
            Clearable::Set(v) => *stored = Some(v),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Clearable<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // Reached only when the key is present: a missing key is `#[serde(default)]`'s.
        Ok(match Option::<T>::deserialize(deserializer)? {
            None => Clearable::Clear,
            Some(v) => Clearable::Set(v),
        })
    }
}

impl<T: Serialize> Serialize for Clearable<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            // A field left out is skipped by `skip_serializing_if`; written alone, it is null.
            Clearable::Keep | Clearable::Clear => serializer.serialize_none(),
            Clearable::Set(v) => serializer.serialize_some(v),
        }
    }
}
