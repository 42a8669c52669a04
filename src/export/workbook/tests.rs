use rust_decimal::Decimal;

use super::columns::{money_cell, month_start};
use super::sheet::unique_sheet_names;

#[test]
fn sheet_names_fit_excel_rules() {
    let long = "creditos_por_natureza_juridica_e_mais_um_pouco";
    let names = unique_sheet_names(["Resumo", "a/b", long, long, "RESUMO", ""].into_iter());
    assert_eq!(names[0], "Resumo");
    assert_eq!(names[1], "a_b");
    assert_eq!(names[2], "creditos_por_natureza_juridica_");
    assert_eq!(names[3].chars().count(), 31);
    assert!(names[3].ends_with("_2"), "{}", names[3]);
    assert_eq!(names[4], "RESUMO_2", "case-blind uniqueness");
    assert_eq!(names[5], "tabela");
}

#[test]
fn money_is_rounded_to_the_cent() {
    assert_eq!(money_cell(Decimal::new(123_456_789_012_345, 2)), 1_234_567_890_123.45);
    assert_eq!(money_cell(Decimal::new(1005, 3)), 1.01, "half a cent rounds away from zero");
    assert_eq!(money_cell(Decimal::new(-1005, 3)), -1.01);
}

#[test]
fn months_become_their_first_day() {
    assert_eq!(month_start("202507"), chrono::NaiveDate::from_ymd_opt(2025, 7, 1));
    assert_eq!(month_start("202513"), None);
    assert_eq!(month_start("2025-07"), None);
}
