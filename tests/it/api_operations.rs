//! Every operation of the registry spec, driven through the typed client against the embedded
//! registry, checked against the dataset's ground truth.

use crate::common_registry as common;

use common::*;
use fiscal_report::api::models::*;
use fiscal_report::api::paginate::walk_pages;
use fiscal_report::api::{
    ApiError, Categoria, Cno, Cnpj, Nirf, Operation, OperationArgs, OperationKind, Page, Uf,
};

#[tokio::test]
async fn every_operation_parses_into_its_model() {
    let reg = registry().await;
    let c = client(&reg, KEY);
    let d = reg.dataset();
    // A company with works, so the CNO operations have something to look up.
    let (cnpj, obras) = (0..d.company_count())
        .map(|i| d.company_cnpj(i))
        .find_map(|c| d.obras(&c).filter(|o| !o.is_empty()).map(|o| (c, o)))
        .expect("some company has works");

    let p: CompanyProfile = c.get_one(&Operation::Empresa(cnpj.clone())).await.unwrap();
    assert_eq!(Some(p.clone()), d.profile(&cnpj));
    assert!(p.empresa.and_then(|e| e.razao_social).is_some());

    let page = Page::first();
    let e: Envelope<Estabelecimento> =
        c.get_page(&Operation::Estabelecimentos(cnpj.clone()), page).await.unwrap();
    assert_eq!(Some(e.itens), d.estabelecimentos(&cnpj));
    let e: Envelope<Obra> = c.get_page(&Operation::ObrasCno(cnpj.clone()), page).await.unwrap();
    assert_eq!(e.itens, obras);
    let e: Envelope<Socio> = c.get_page(&Operation::Socios(cnpj.clone()), page).await.unwrap();
    assert_eq!(Some(e.itens), d.socios(&cnpj));
    for cat in Categoria::ALL {
        let e: Envelope<DividaPgfn> =
            c.get_page(&Operation::DividasPgfn(cnpj.clone(), cat), page).await.unwrap();
        let truth = d.dividas(&cnpj, cat).unwrap();
        assert_eq!(e.paginacao.unwrap().total, Some(truth.len() as i64));
        assert_eq!(e.itens, truth.into_iter().take(100).collect::<Vec<_>>());
    }
    let e: Envelope<ParcelamentoRfb> =
        c.get_page(&Operation::ParcelamentosRfb(cnpj.clone()), page).await.unwrap();
    assert_eq!(Some(e.itens), d.parcelamentos(&cnpj));
    let e: Envelope<TransacaoRfb> = c.get_page(&Operation::TransacoesRfb(cnpj.clone()), page).await.unwrap();
    assert_eq!(Some(e.itens), d.transacoes(&cnpj));

    let cno_text = obras[0].cno.clone().unwrap();
    let cno = Cno::parse(&cno_text).unwrap();
    let o: Obra = c.get_one(&Operation::Obra(cno.clone())).await.unwrap();
    assert_eq!(Some(o), d.obra(&cno_text));
    let v: Envelope<Vinculo> = c.get_page(&Operation::Vinculos(cno.clone()), page).await.unwrap();
    assert_eq!(Some(v.itens), d.vinculos(&cno_text));
    let v: Envelope<ObraCnae> = c.get_page(&Operation::Cnaes(cno.clone()), page).await.unwrap();
    assert_eq!(Some(v.itens), d.cnaes(&cno_text));
    let v: Envelope<ObraArea> = c.get_page(&Operation::Areas(cno), page).await.unwrap();
    assert_eq!(Some(v.itens), d.areas(&cno_text));

    let uf = Uf::parse("SP").unwrap();
    let props: Envelope<ImovelRural> = c
        .get_page(&Operation::Imoveis { uf: Some(uf.clone()), municipio: None }, Page::new(5, 0).unwrap())
        .await
        .unwrap();
    let truth = d.imoveis(Some("SP"), None);
    assert_eq!(props.paginacao.as_ref().unwrap().total, Some(truth.len() as i64));
    assert_eq!(props.itens, truth.iter().take(5).cloned().collect::<Vec<_>>());
    let nirf_text = truth[0].nirf.clone().unwrap();
    let one: ImovelRural = c.get_one(&Operation::Imovel(Nirf::parse(&nirf_text).unwrap())).await.unwrap();
    assert_eq!(one, truth[0]);
    let municipio = truth[0].municipio.clone().unwrap();
    let by_town: Envelope<ImovelRural> =
        c.get_page(&Operation::Imoveis { uf: None, municipio: Some(municipio.clone()) }, page).await.unwrap();
    assert!(by_town.itens.iter().all(|p| p.municipio.as_deref() == Some(municipio.as_str())));

    let m = d.latest_month();
    let cr: Envelope<CreditoAtivo> = c
        .get_page(&Operation::CreditosAtivos { uf: Some(uf), ano_mes: Some(m) }, Page::new(2, 0).unwrap())
        .await
        .unwrap();
    let pag = cr.paginacao.unwrap();
    assert_eq!((pag.limite, pag.offset), (Some(2), Some(0)));
    assert_eq!(pag.total, Some(d.creditos_total(Some("SP"), Some(m)) as i64));
    assert_eq!(cr.itens, d.creditos_page(Some("SP"), Some(m), 0, 2));
    assert!(cr.fonte.unwrap().versao.is_some());
}

#[tokio::test]
async fn lists_walked_across_pages_equal_the_ground_truth() {
    let reg = registry().await;
    let c = client(&reg, KEY);
    let d = reg.dataset();
    // The largest debt list in the dataset: it takes 3+ pages of 100.
    let (cnpj, cat, truth) = (0..d.company_count())
        .map(|i| d.company_cnpj(i))
        .flat_map(|c| Categoria::ALL.map(|cat| (c.clone(), cat)))
        .map(|(c, cat)| {
            let t = d.dividas(&c, cat).unwrap();
            (c, cat, t)
        })
        .max_by_key(|(_, _, t)| t.len())
        .unwrap();
    assert!(truth.len() > 200, "need a list of 3+ pages, largest has {}", truth.len());
    let op = Operation::DividasPgfn(cnpj, cat);
    let walk = walk_pages("dividas", 4, |p| c.get_page::<DividaPgfn>(&op, p)).await.unwrap();
    assert_eq!(walk.pages as usize, truth.len().div_ceil(100));
    assert_eq!(walk.items, truth);
    assert!(walk.warnings.is_empty(), "{:?}", walk.warnings);

    let m = d.latest_month();
    let op = Operation::CreditosAtivos { uf: Some(Uf::parse("SP").unwrap()), ano_mes: Some(m) };
    let walk = walk_pages("creditos", 4, |p| c.get_page::<CreditoAtivo>(&op, p)).await.unwrap();
    let total = d.creditos_total(Some("SP"), Some(m));
    assert!(walk.pages >= 3);
    assert_eq!(walk.items, d.creditos_page(Some("SP"), Some(m), 0, total));

    // A list with nothing in it: total 0, one request, no warnings.
    let empty = (0..d.company_count())
        .map(|i| d.company_cnpj(i))
        .find(|c| d.transacoes(c).unwrap().is_empty())
        .unwrap();
    let op = Operation::TransacoesRfb(empty);
    let walk = walk_pages("transacoes", 4, |p| c.get_page::<TransacaoRfb>(&op, p)).await.unwrap();
    assert_eq!((walk.total, walk.pages, walk.items.len()), (0, 1, 0));
}

#[tokio::test]
async fn keys_missing_or_wrong_are_rejected_with_a_hint() {
    let reg = registry().await;
    let d = reg.dataset();
    let op = Operation::Empresa(d.company_cnpj(0));
    let wrong = client(&reg, "not-the-key").get_raw(&op, None).await.unwrap_err();
    assert!(matches!(wrong, ApiError::KeyRejected { status: 401, .. }), "{wrong:?}");
    assert!(wrong.to_string().contains("REGISTRY_API_KEY"));
    assert!(!wrong.to_string().contains("not-the-key"));
    // No header at all: a plain HTTP client.
    let resp =
        plain_http().get(format!("{}/v1/cnpjs/{}", reg.base_url(), d.company_cnpj(0))).send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 401);
    let body: DetailBody = resp.json().await.unwrap();
    assert!(!body.detail.is_empty());
}

#[tokio::test]
async fn unknown_records_are_404() {
    let reg = registry().await;
    let c = client(&reg, KEY);
    let d = reg.dataset();
    let unknown = (0..10_000u64)
        .filter_map(|i| Cnpj::from_base(&format!("{:08}0001", 99_000_000 + i)))
        .find(|c| d.company_index(c).is_none())
        .unwrap();
    for kind in [OperationKind::Empresa, OperationKind::Socios, OperationKind::DividasPgfn] {
        let op =
            Operation::build(kind, &OperationArgs { id: Some(unknown.to_string()), ..Default::default() })
                .unwrap();
        let e = c.get_raw(&op, kind.is_list().then(Page::first)).await.unwrap_err();
        assert!(matches!(e, ApiError::NotFound { .. }), "{kind}: {e:?}");
    }
    let e = c.get_raw(&Operation::Obra(Cno::parse("000000000000").unwrap()), None).await.unwrap_err();
    assert!(matches!(e, ApiError::NotFound { .. }));
    let e = c.get_raw(&Operation::Imovel(Nirf::parse("00000000").unwrap()), None).await.unwrap_err();
    assert!(matches!(e, ApiError::NotFound { .. }));
}

fn locs(e: &ApiError) -> Vec<String> {
    match e {
        ApiError::Validation { status: 422, issues } => issues.iter().map(|i| i.location()).collect(),
        other => panic!("expected a 422 validation error, got {other:?}"),
    }
}

#[tokio::test]
async fn invalid_requests_get_fastapi_style_422_bodies() {
    let reg = registry().await;
    let c = client(&reg, KEY);
    let cnpj = reg.dataset().company_cnpj(0);
    let cases: Vec<(String, Vec<&str>)> = vec![
        ("/v1/cnpjs/123".into(), vec!["path.cnpj"]),
        ("/v1/cnpjs/1234567890123a/socios".into(), vec!["path.cnpj"]),
        ("/v1/cnos/12345/vinculos".into(), vec!["path.cno"]),
        ("/v1/cnos/abcdefghijkl".into(), vec!["path.cno"]),
        ("/v1/cafir/imoveis/1234".into(), vec!["path.nirf"]),
        (format!("/v1/cnpjs/{cnpj}/socios?limite=0"), vec!["query.limite"]),
        (format!("/v1/cnpjs/{cnpj}/socios?limite=101"), vec!["query.limite"]),
        (format!("/v1/cnpjs/{cnpj}/socios?offset=-1"), vec!["query.offset"]),
        (format!("/v1/cnpjs/{cnpj}/socios?limite=abc&offset=x"), vec!["query.limite", "query.offset"]),
        (format!("/v1/cnpjs/{cnpj}/dividas-pgfn?categoria=bad"), vec!["query.categoria"]),
        ("/v1/rfb/creditos-ativos?ano_mes=202413".into(), vec!["query.ano_mes"]),
        ("/v1/rfb/creditos-ativos?ano_mes=2024-01&limite=500".into(), vec!["query.ano_mes", "query.limite"]),
        ("/v1/cafir/imoveis?offset=-5".into(), vec!["query.offset"]),
    ];
    for (path, expected) in cases {
        let e = c.get_path(&path).await.unwrap_err();
        assert_eq!(locs(&e), expected, "{path}");
        if let ApiError::Validation { issues, .. } = &e {
            assert!(
                issues.iter().all(|i| !i.msg.is_empty() && !i.kind.is_empty() && i.ctx.is_some()),
                "{path}"
            );
        }
    }
}

#[test]
fn out_of_range_pages_and_bad_ids_are_refused_before_sending() {
    assert!(Page::new(0, 0).is_err());
    assert!(Page::new(101, 0).is_err());
    assert!(Page::new(100, -1).is_err());
    for (kind, id) in
        [(OperationKind::Empresa, "123"), (OperationKind::Obra, "1"), (OperationKind::Imovel, "abc")]
    {
        let e =
            Operation::build(kind, &OperationArgs { id: Some(id.into()), ..Default::default() }).unwrap_err();
        assert!(e.to_string().contains(id), "{e}");
    }
    let e = Operation::build(
        OperationKind::DividasPgfn,
        &OperationArgs {
            id: Some("33683111000280".into()),
            categoria: Some("xx".into()),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("nao_previdenciario"));
    let e = Operation::build(
        OperationKind::CreditosAtivos,
        &OperationArgs { ano_mes: Some("202413".into()), ..Default::default() },
    )
    .unwrap_err();
    assert!(e.to_string().contains("month 13"));
}

#[tokio::test]
async fn same_seed_and_scale_give_byte_identical_responses() {
    let (a, b) = (registry().await, registry().await);
    let (ca, cb) = (client(&a, KEY), client(&b, KEY));
    let cnpj = a.dataset().company_cnpj(3);
    for path in [
        format!("/v1/cnpjs/{cnpj}"),
        format!("/v1/cnpjs/{cnpj}/dividas-pgfn?limite=100"),
        "/v1/rfb/creditos-ativos?limite=100&offset=250".to_string(),
        "/v1/cafir/imoveis?uf=MG&limite=7".to_string(),
    ] {
        assert_eq!(
            ca.get_path(&path).await.unwrap().bytes,
            cb.get_path(&path).await.unwrap().bytes,
            "{path}"
        );
    }
}
