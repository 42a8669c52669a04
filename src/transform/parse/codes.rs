//! Codes: the CNAE section of a code (the sections themselves are the interface's table,
//! `api::cnae`), and a state from its code or name.

use crate::api::cnae::{section_by_letter, section_of_subclass};

/// The section (letter and Portuguese name) of a 7-digit CNAE subclass, bare (`6201501`) or in
/// the official mask (`6201-5/01`) (`api::cnae::section_of_subclass`, which says what it refuses).
pub fn cnae_section(cnae: &str) -> Option<(char, &'static str)> {
    section_of_subclass(cnae.as_bytes()).map(|s| (s.letter, s.name))
}

/// The name of a CNAE section given by its letter (`J` is "Informação e comunicação").
pub fn cnae_section_name(letter: &str) -> Option<&'static str> {
    let mut chars = letter.trim().chars();
    let (Some(c), None) = (chars.next(), chars.next()) else { return None };
    section_by_letter(c).map(|s| s.name)
}

/// The five groups of the legal-nature table (IBGE's CONCLA, "Tabela de Natureza Jurídica
/// 2021"), by the first digit of a `natureza_juridica` code: 2062 (sociedade empresária limitada)
/// is in group 2.
const NATUREZA_GROUPS: [(&str, &str); 5] = [
    ("1", "Administração pública"),
    ("2", "Entidades empresariais"),
    ("3", "Entidades sem fins lucrativos"),
    ("4", "Pessoas físicas"),
    ("5", "Organizações internacionais e outras instituições extraterritoriais"),
];

/// The name of a legal-nature group given by its digit (`2` is "Entidades empresariais").
pub fn natureza_group_name(digit: &str) -> Option<&'static str> {
    NATUREZA_GROUPS.iter().find(|(d, _)| *d == digit.trim()).map(|(_, name)| *name)
}

/// The 27 federative units in the order of `docs/domain.md`, "States (UF)", with their names
/// upper-cased and without accents, as [`normalise_uf`] folds its input.
const UF_NAMES: [(&str, &str); 27] = [
    ("AC", "ACRE"),
    ("AL", "ALAGOAS"),
    ("AP", "AMAPA"),
    ("AM", "AMAZONAS"),
    ("BA", "BAHIA"),
    ("CE", "CEARA"),
    ("DF", "DISTRITO FEDERAL"),
    ("ES", "ESPIRITO SANTO"),
    ("GO", "GOIAS"),
    ("MA", "MARANHAO"),
    ("MT", "MATO GROSSO"),
    ("MS", "MATO GROSSO DO SUL"),
    ("MG", "MINAS GERAIS"),
    ("PA", "PARA"),
    ("PB", "PARAIBA"),
    ("PR", "PARANA"),
    ("PE", "PERNAMBUCO"),
    ("PI", "PIAUI"),
    ("RJ", "RIO DE JANEIRO"),
    ("RN", "RIO GRANDE DO NORTE"),
    ("RS", "RIO GRANDE DO SUL"),
    ("RO", "RONDONIA"),
    ("RR", "RORAIMA"),
    ("SC", "SANTA CATARINA"),
    ("SP", "SAO PAULO"),
    ("SE", "SERGIPE"),
    ("TO", "TOCANTINS"),
];

/// The two-letter code of a state given as its code (`sp`, ` SP `) or its full name in any case,
/// with or without accents (`São Paulo`, `SAO PAULO`, `SÃO PAULO`), as the negotiation exports
/// spell them out. Runs of whitespace (including NBSP) count as one space, and combining accents
/// (decomposed text) are ignored. `None` for anything else.
pub fn normalise_uf(s: &str) -> Option<&'static str> {
    let mut buf = [0u8; 24];
    let folded = fold_name(s, &mut buf)?;
    UF_NAMES
        .iter()
        .find(|(code, name)| code.as_bytes() == folded || name.as_bytes() == folded)
        .map(|(code, _)| *code)
}

/// Codes the publishers put in a state field on purpose for what is not a state: the PGFN
/// files' `NA` ("Não se Aplica", debts managed nationally, by Caixa for FGTS) and the CNPJ
/// files' `EX` (an address abroad). Code, folded spelled-out name, label.
const UF_OUTSIDE_STATES: [(&str, &str, &str); 2] =
    [("NA", "NAO SE APLICA", "Não se aplica"), ("EX", "EXTERIOR", "Exterior")];

/// The code of a state field's value that is not a state but a code the publisher uses on
/// purpose (`NA`, `EX`, or their spelled-out names). Kept as it is, never a failure.
pub fn uf_outside_states(s: &str) -> Option<&'static str> {
    let mut buf = [0u8; 24];
    let folded = fold_name(s, &mut buf)?;
    UF_OUTSIDE_STATES
        .iter()
        .find(|(code, name, _)| code.as_bytes() == folded || name.as_bytes() == folded)
        .map(|(code, _, _)| *code)
}

/// What a person reads for a code of [`uf_outside_states`]: `NA` is "Não se aplica".
pub fn uf_outside_states_label(code: &str) -> Option<&'static str> {
    UF_OUTSIDE_STATES.iter().find(|(c, _, _)| *c == code).map(|(_, _, label)| *label)
}

/// `s` upper-cased, without accents, with runs of whitespace as one space, in `buf`; `None`
/// when it holds anything but letters or is too long for a state's name.
fn fold_name<'a>(s: &str, buf: &'a mut [u8; 24]) -> Option<&'a [u8]> {
    // The longest name, RIO GRANDE DO NORTE, has 19 letters; folding into a fixed buffer keeps
    // this allocation-free on per-row use.
    let mut len = 0;
    for word in s.split_whitespace() {
        if len > 0 {
            *buf.get_mut(len)? = b' ';
            len += 1;
        }
        for c in word.chars() {
            if ('\u{300}'..='\u{36f}').contains(&c) {
                continue;
            }
            *buf.get_mut(len)? = fold_letter(c)?;
            len += 1;
        }
    }
    Some(&buf[..len])
}

/// A Latin letter upper-cased and stripped of its accent; `None` for anything that cannot be
/// part of a state's name.
fn fold_letter(c: char) -> Option<u8> {
    let base = match c {
        'a'..='z' | 'A'..='Z' => c.to_ascii_uppercase(),
        'á' | 'à' | 'â' | 'ã' | 'ä' | 'Á' | 'À' | 'Â' | 'Ã' | 'Ä' => 'A',
        'é' | 'è' | 'ê' | 'ë' | 'É' | 'È' | 'Ê' | 'Ë' => 'E',
        'í' | 'ì' | 'î' | 'ï' | 'Í' | 'Ì' | 'Î' | 'Ï' => 'I',
        'ó' | 'ò' | 'ô' | 'õ' | 'ö' | 'Ó' | 'Ò' | 'Ô' | 'Õ' | 'Ö' => 'O',
        'ú' | 'ù' | 'û' | 'ü' | 'Ú' | 'Ù' | 'Û' | 'Ü' => 'U',
        'ç' | 'Ç' => 'C',
        _ => return None,
    };
    u8::try_from(base).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cnae_sections_by_division() {
        assert_eq!(cnae_section("6201501"), Some(('J', "Informação e comunicação")));
        assert_eq!(cnae_section("6201-5/01"), Some(('J', "Informação e comunicação")));
        assert_eq!(cnae_section(" 0111301 ").map(|s| s.0), Some('A'));
        let bounds = [
            ('A', 1, 3),
            ('B', 5, 9),
            ('C', 10, 33),
            ('D', 35, 35),
            ('E', 36, 39),
            ('F', 41, 43),
            ('G', 45, 47),
            ('H', 49, 53),
            ('I', 55, 56),
            ('J', 58, 63),
            ('K', 64, 66),
            ('L', 68, 68),
            ('M', 69, 75),
            ('N', 77, 82),
            ('O', 84, 84),
            ('P', 85, 85),
            ('Q', 86, 88),
            ('R', 90, 93),
            ('S', 94, 96),
            ('T', 97, 97),
            ('U', 99, 99),
        ];
        let mut known = 0;
        for division in 0..=99u8 {
            let code = format!("{division:02}12345");
            let want = bounds.iter().find(|(_, a, b)| (*a..=*b).contains(&division)).map(|t| t.0);
            assert_eq!(cnae_section(&code).map(|s| s.0), want, "division {division:02}");
            known += usize::from(want.is_some());
        }
        assert_eq!(known, 87);
        for unknown in ["0012345", "0412345", "3412345", "4012345", "4412345", "9812345"] {
            assert_eq!(cnae_section(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn cnae_garbage() {
        assert_eq!(cnae_section("8888888"), None, "the published 'not informed' is no section");
        assert_eq!(cnae_section("0000000"), None);
        for s in [
            "",
            "abc",
            "620150",
            "111301",
            "62015011",
            "62-01501",
            "6201.5/01",
            "6201/5-01",
            "62a1501",
            "6201-5/0a",
            "６２０１５０１",
            "-6201501",
        ] {
            assert_eq!(cnae_section(s), None, "{s:?}");
        }
    }

    #[test]
    fn every_state_by_code_and_name() {
        let names = [
            "Acre",
            "Alagoas",
            "Amapá",
            "Amazonas",
            "Bahia",
            "Ceará",
            "Distrito Federal",
            "Espírito Santo",
            "Goiás",
            "Maranhão",
            "Mato Grosso",
            "Mato Grosso do Sul",
            "Minas Gerais",
            "Pará",
            "Paraíba",
            "Paraná",
            "Pernambuco",
            "Piauí",
            "Rio de Janeiro",
            "Rio Grande do Norte",
            "Rio Grande do Sul",
            "Rondônia",
            "Roraima",
            "Santa Catarina",
            "São Paulo",
            "Sergipe",
            "Tocantins",
        ];
        let domain_order = "AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC \
                            SP SE TO";
        let codes: Vec<&str> = UF_NAMES.iter().map(|(c, _)| *c).collect();
        assert_eq!(codes.join(" "), domain_order);
        for ((code, _), name) in UF_NAMES.iter().zip(names) {
            let variants = [
                code.to_string(),
                code.to_lowercase(),
                format!("  {code}\u{a0}"),
                name.to_string(),
                name.to_uppercase(),
                name.to_lowercase(),
                format!(" {} ", name.to_uppercase().replace(' ', "  ")),
            ];
            for v in &variants {
                assert_eq!(normalise_uf(v), Some(*code), "{v:?}");
            }
        }
        for v in ["SAO PAULO", "SÃO PAULO", "são paulo", "Sao Paulo", "Sa\u{303}o Paulo"] {
            assert_eq!(normalise_uf(v), Some("SP"), "{v:?}");
        }
        assert_eq!(normalise_uf("ESPIRITO SANTO"), Some("ES"));
        assert_eq!(normalise_uf("RIO GRANDE DO NORTE         "), Some("RN"));
    }

    #[test]
    fn unknown_states() {
        for v in [
            "",
            " ",
            "XX",
            "S",
            "S P",
            "São",
            "Sao Paulo SP",
            "SP1",
            "S.P.",
            "Rio Grande",
            "MATO-GROSSO",
            "SÃƒO PAULO",
            "RIO GRANDE DO NORTE AND MUCH MORE TEXT",
        ] {
            assert_eq!(normalise_uf(v), None, "{v:?}");
        }
    }
}

/// A debtor's role in a PGFN inscription (`tipo_devedor`), whatever the case, accents, spaces
/// or hyphens: SIDA writes `PRINCIPAL`, the previdenciário and FGTS files `Principal`, and a
/// co-debtor may come as `CORRESPONSAVEL`, `Co-responsável` or `Solidário`. `Err` carries the
/// folded text of a role outside the three, so it is kept and counted, not guessed.
pub fn debtor_role(text: &str) -> Result<&'static str, String> {
    use unicode_normalization::UnicodeNormalization;
    let folded: String = text
        .nfd()
        .filter(|c| c.is_alphanumeric() && !unicode_normalization::char::is_combining_mark(*c))
        .flat_map(char::to_uppercase)
        .collect();
    match folded.as_str() {
        "PRINCIPAL" => Ok("PRINCIPAL"),
        "CORRESPONSAVEL" | "CORESPONSAVEL" => Ok("CORRESPONSAVEL"),
        "SOLIDARIO" | "SOLIDARIA" => Ok("SOLIDARIO"),
        _ => Err(folded),
    }
}

#[cfg(test)]
mod debtor_role_tests {
    use super::debtor_role;

    #[test]
    fn every_published_spelling_is_one_role() {
        for (text, role) in [
            ("PRINCIPAL", "PRINCIPAL"),
            ("Principal", "PRINCIPAL"),
            (" principal ", "PRINCIPAL"),
            ("CORRESPONSAVEL", "CORRESPONSAVEL"),
            ("Corresponsável", "CORRESPONSAVEL"),
            ("CO-RESPONSÁVEL", "CORRESPONSAVEL"),
            ("SOLIDARIO", "SOLIDARIO"),
            ("Solidário", "SOLIDARIO"),
        ] {
            assert_eq!(debtor_role(text), Ok(role), "{text}");
        }
        assert_eq!(debtor_role("Avalista"), Err("AVALISTA".to_string()));
    }
}
