//! CNAE 2.x sections (`docs/domain.md`, "CNAE 2.x sections"): each section's letter, the
//! two-digit divisions it holds and its name as the sources write it. The one table both the
//! client (which section a company's code falls in) and the embedded registry (the sections it
//! writes) read.

/// One CNAE section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CnaeSection {
    pub letter: char,
    /// The first and last two-digit division it holds.
    pub divisions: (u8, u8),
    /// Its Portuguese name, accented.
    pub name: &'static str,
}

const fn section(letter: char, first: u8, last: u8, name: &'static str) -> CnaeSection {
    CnaeSection { letter, divisions: (first, last), name }
}

#[rustfmt::skip]
pub const CNAE_SECTIONS: [CnaeSection; 21] = [
    section('A', 1, 3, "Agricultura, pecuária, produção florestal, pesca e aquicultura"),
    section('B', 5, 9, "Indústrias extrativas"),
    section('C', 10, 33, "Indústrias de transformação"),
    section('D', 35, 35, "Eletricidade e gás"),
    section('E', 36, 39, "Água, esgoto, atividades de gestão de resíduos e descontaminação"),
    section('F', 41, 43, "Construção"),
    section('G', 45, 47, "Comércio; reparação de veículos automotores e motocicletas"),
    section('H', 49, 53, "Transporte, armazenagem e correio"),
    section('I', 55, 56, "Alojamento e alimentação"),
    section('J', 58, 63, "Informação e comunicação"),
    section('K', 64, 66, "Atividades financeiras, de seguros e serviços relacionados"),
    section('L', 68, 68, "Atividades imobiliárias"),
    section('M', 69, 75, "Atividades profissionais, científicas e técnicas"),
    section('N', 77, 82, "Atividades administrativas e serviços complementares"),
    section('O', 84, 84, "Administração pública, defesa e seguridade social"),
    section('P', 85, 85, "Educação"),
    section('Q', 86, 88, "Saúde humana e serviços sociais"),
    section('R', 90, 93, "Artes, cultura, esporte e recreação"),
    section('S', 94, 96, "Outras atividades de serviços"),
    section('T', 97, 97, "Serviços domésticos"),
    section('U', 99, 99, "Organismos internacionais e outras instituições extraterritoriais"),
];

/// The section holding a two-digit division; `None` for the divisions no section holds (00,
/// 04, 34, 40, ...).
pub fn section_of_division(division: u8) -> Option<&'static CnaeSection> {
    CNAE_SECTIONS.iter().find(|s| (s.divisions.0..=s.divisions.1).contains(&division))
}

/// The section of a 7-digit CNAE subclass, bare (`6201501`) or in the official mask
/// (`6201-5/01`), from its first two digits. `None` for divisions that no section holds (00, 04,
/// 34, 40, ...) and for anything else, including 6-digit codes whose leading zero was lost:
/// `111301` could be `0111301` (A) or a truncated code, and guessing would file a company under
/// the wrong section. Bytes, as the files hold them, so a reader of millions of rows decodes none.
pub fn section_of_subclass(cnae: &[u8]) -> Option<&'static CnaeSection> {
    let b = cnae.trim_ascii();
    let digits: [u8; 7] = match b.len() {
        7 => b.try_into().ok()?,
        9 if b[4] == b'-' && b[6] == b'/' => [b[0], b[1], b[2], b[3], b[5], b[7], b[8]],
        _ => return None,
    };
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // The CNPJ files write 8888888 for "atividade não informada": its 88 is not division 88
    // (section Q), and all zeros is no code either.
    if digits == *b"8888888" || digits == *b"0000000" {
        return None;
    }
    section_of_division((digits[0] - b'0') * 10 + (digits[1] - b'0'))
}

/// The section of a letter, upper or lower case.
pub fn section_by_letter(letter: char) -> Option<&'static CnaeSection> {
    CNAE_SECTIONS.iter().find(|s| s.letter == letter.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_in_order_and_their_divisions_never_overlap() {
        for pair in CNAE_SECTIONS.windows(2) {
            assert!(pair[0].letter < pair[1].letter, "{pair:?}");
            assert!(pair[0].divisions.1 < pair[1].divisions.0, "{pair:?}");
        }
        assert_eq!(section_of_division(62).map(|s| s.letter), Some('J'));
        assert_eq!(section_of_division(4), None);
        assert_eq!(section_by_letter('j').map(|s| s.name), Some("Informação e comunicação"));
    }
}
