//! How the sources and the report write a number's whole part: digits in groups of three
//! (`7.598.208`, `7,598,208`). The one grouping the embedded registry's records (pt-BR money)
//! and the report's figures share.

/// `digits` (ASCII digits, no sign) with `sep` before every group of three from the right.
pub fn group_thousands(digits: &str, sep: char) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::group_thousands;

    #[test]
    fn groups_of_three_from_the_right() {
        assert_eq!(group_thousands("7598208", '.'), "7.598.208");
        assert_eq!(group_thousands("598208", ','), "598,208");
        assert_eq!(group_thousands("12", '.'), "12");
        assert_eq!(group_thousands("", '.'), "");
    }
}
