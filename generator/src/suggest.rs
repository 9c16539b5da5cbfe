//! "Did you mean …?": the nearest of the names something may have, for misspelt
//! fields, block types, icons, islands and layouts.

/// The known name closest to `word`, if it is close enough to be the one meant:
/// at most one edit between short words, up to a third of the longer of the two
/// for long ones, three at most (a swapped pair of letters counts as one edit),
/// so a word cut short (`tagln`) still finds its name (`tagline`). The first of
/// equals wins.
pub fn nearest<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let names: Vec<&'a str> = names.into_iter().collect();
    let place = Index::new(names.iter().copied()).nearest_entry(word)?.place;
    Some(names[place])
}

/// The most edits a suggestion may be away, however long the words.
const MOST_EDITS: usize = 3;

/// A list of names, ready for lookups: a long one (every page's address, every
/// file under `public/`) is indexed once for many. Each name is lower-cased,
/// counted by character and filed by its length once; a lookup then measures only
/// names of a close length whose characters could be within reach, since an edit
/// changes the counts of at most two characters by one.
pub struct Index {
    /// Names by their length in characters.
    by_length: std::collections::BTreeMap<usize, Vec<Entry>>,
}

struct Entry {
    /// The name's place in the list given: the first of equals wins.
    place: usize,
    lower: String,
    counts: Counts,
    name: String,
}

/// How many of each character a name has, characters folded into 64 classes.
#[derive(Clone, Copy)]
struct Counts([u8; 64]);

impl Counts {
    fn of(text: &str) -> Counts {
        let mut counts = [0u8; 64];
        for c in text.chars() {
            let slot = &mut counts[(c as usize) % 64];
            *slot = slot.saturating_add(1);
        }
        Counts(counts)
    }

    /// A lower bound on the edits between two texts with these counts.
    fn distance_at_least(&self, other: &Counts) -> usize {
        let (mut more, mut fewer) = (0usize, 0usize);
        for (a, b) in self.0.iter().zip(&other.0) {
            if a > b {
                more += usize::from(a - b);
            } else {
                fewer += usize::from(b - a);
            }
        }
        more.max(fewer)
    }
}

impl Index {
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Index {
        let mut by_length: std::collections::BTreeMap<usize, Vec<Entry>> = Default::default();
        for (place, name) in names.into_iter().enumerate() {
            let lower = name.to_lowercase();
            by_length
                .entry(lower.chars().count())
                .or_default()
                .push(Entry {
                    place,
                    counts: Counts::of(&lower),
                    lower,
                    name: name.to_string(),
                });
        }
        Index { by_length }
    }

    /// The entry nearest to `word`, within reach.
    fn nearest_entry(&self, word: &str) -> Option<&Entry> {
        let word = word.to_lowercase();
        let length = word.chars().count();
        // The edits allowed between `word` and a name of `other` characters.
        let allowed = |other: usize| (length.max(other) / 3).clamp(1, MOST_EDITS);
        let counts = Counts::of(&word);
        self.by_length
            .range(length.saturating_sub(MOST_EDITS)..=length + MOST_EDITS)
            .filter(|(other, _)| other.abs_diff(length) <= allowed(**other))
            .flat_map(|(other, names)| names.iter().map(move |e| (allowed(*other), e)))
            .filter(|(allowed, e)| e.counts.distance_at_least(&counts) <= *allowed)
            .map(|(allowed, e)| (strsim::osa_distance(&word, &e.lower), allowed, e))
            .filter(|(distance, allowed, _)| distance <= allowed)
            .min_by_key(|(distance, _, e)| (*distance, e.place))
            .map(|(_, _, e)| e)
    }

    pub fn nearest(&self, word: &str) -> Option<&str> {
        self.nearest_entry(word).map(|e| e.name.as_str())
    }

    pub fn did_you_mean(&self, word: &str) -> String {
        hint(self.nearest(word))
    }
}

fn hint(name: Option<&str>) -> String {
    name.map(|n| format!("; did you mean `{n}`?"))
        .unwrap_or_default()
}

/// `; did you mean `card_grid`?`, or nothing.
pub fn did_you_mean<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    hint(nearest(word, names))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_nearest_name_when_it_is_close() {
        let types = ["hero", "card_grid", "split", "stats", "cta"];
        assert_eq!(nearest("card_gird", types), Some("card_grid"));
        assert_eq!(nearest("Hero", types), Some("hero"));
        assert_eq!(nearest("heor", types), Some("hero"));
        assert_eq!(nearest("carousel", types), None);
        assert_eq!(
            did_you_mean("titel", ["title", "text"]),
            "; did you mean `title`?"
        );
        assert_eq!(did_you_mean("zzz", ["title"]), "");
        // A word cut short is measured against the name it may mean.
        let site = ["name", "base_url", "tagline", "description", "timezone"];
        assert_eq!(nearest("tagln", site), Some("tagline"));
        assert_eq!(nearest("descr", site), None, "too far from `description`");
        assert_eq!(nearest("zone", site), None);
    }

    #[test]
    fn the_index_finds_what_measuring_every_name_finds() {
        let routes = [
            "/about/",
            "/About-Us/",
            "/abut/",
            "/services/cloud/",
            "/contact/",
            "/x/",
        ];
        let index = Index::new(routes);
        for word in [
            "/aboot/",
            "/about/",
            "/servces/cloud/",
            "/contatc/",
            "/nothing-like-it/",
            "/y/",
        ] {
            // Every name measured, none ruled out first: what the index must agree with.
            let lower = word.to_lowercase();
            let allowed = (lower.chars().count() / 3).clamp(1, 3);
            let scanned = routes
                .iter()
                .map(|r| (strsim::osa_distance(&lower, &r.to_lowercase()), *r))
                .filter(|(d, _)| *d <= allowed)
                .min_by_key(|(d, _)| *d)
                .map(|(_, r)| r);
            assert_eq!(index.nearest(word), scanned, "{word}");
            assert_eq!(nearest(word, routes), scanned, "{word}");
        }
        assert_eq!(
            index.did_you_mean("/contakt/"),
            "; did you mean `/contact/`?"
        );
    }
}
