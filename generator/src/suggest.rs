//! "Did you mean …?": the nearest of the names something may have, for misspelt
//! fields, block types, icons, islands and layouts.

/// The known name closest to `word`, if it is close enough to be the one meant:
/// at most one edit for short words, up to a third of the word for long ones
/// (a swapped pair of letters counts as one edit).
pub fn nearest<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_lowercase();
    let length = word.chars().count();
    let allowed = (length / 3).clamp(1, 3);
    names
        .into_iter()
        // The distance is at least the difference in length: most of a long list
        // (every page's address) is ruled out without measuring it.
        .filter(|name| name.chars().count().abs_diff(length) <= allowed)
        .map(|name| {
            let distance = strsim::damerau_levenshtein(&word, &name.to_lowercase());
            (distance, name)
        })
        .filter(|(distance, _)| *distance <= allowed)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// `; did you mean `card_grid`?`, or nothing.
pub fn did_you_mean<'a>(word: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    nearest(word, names)
        .map(|n| format!("; did you mean `{n}`?"))
        .unwrap_or_default()
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
    }
}
