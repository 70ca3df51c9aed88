//! The OpenAPI 3.1 document (utoipa), served at `/openapi.json`, with Swagger UI (vendored, no
//! internet needed) at `/docs/`. The committed copy `openapi/openapi.json` is checked for drift.
//! `tests/schemathesis/run.sh` checks the running server against it.

use std::sync::OnceLock;
use utoipa::Modify;
use utoipa::OpenApi;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::schema::{AdditionalProperties, SchemaType, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{Content, HeaderBuilder, Ref, RefOr, ResponseBuilder, Schema};
use utoipa_actix_web::AppExt;

/// The API document's fixed parts (info, tags, extra schemas); [`document`] adds the paths the
/// routes register and the shared responses.
#[derive(OpenApi)]
#[openapi(
    info(title = "Flicker API", description = "REST API of Flicker, the tournament platform for The Final Flicker. Errors are RFC 9457 problem documents (application/problem+json) with a stable `type`. Read-your-writes across API processes: on PostgreSQL every response carries a `Flicker-Position` header (an opaque token); send the latest one back on later requests in the same header and they read at least that far, whichever process answers."),
    components(schemas(flicker_wire::gatherings::Control, crate::gatherings::GatheringEvent)),
    tags(
        (name = "accounts", description = "Accounts, access and refresh tokens, bot tokens"),
        (name = "tables", description = "Tables: single games for practice and testing"),
        (name = "play", description = "Prompts, answers and each viewer's events"),
        (name = "chat", description = "Table chat: seated players talk, spectators read behind the spectator delay, the moderator mutes a seat"),
        (name = "gatherings", description = "Gatherings: registration, circles, stages, the Final Ritual, standings (RULES.md section 9)"),
        (name = "spectators", description = "Live streams (Server-Sent Events) and replays, each redacted for its viewer (R10.8)"),
        (name = "operations", description = "Health, readiness, metrics"),
    )
)]
pub struct ApiDoc;

/// The API document: [`ApiDoc`], the operations collected from the routes as they are
/// registered (`crate::routes::register`, so each route is listed once), the bearer scheme and
/// the responses shared code gives to any operation ([`Contract`]).
pub fn document() -> utoipa::openapi::OpenApi {
    let (_, paths) = actix_web::App::new().into_utoipa_app().configure(crate::routes::register).split_for_parts();
    let mut doc = ApiDoc::openapi();
    doc.merge(paths);
    Security.modify(&mut doc);
    Contract.modify(&mut doc);
    doc
}

struct Security;

impl utoipa::Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let c = openapi.components.get_or_insert_with(Default::default);
        c.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).bearer_format("JWT").build()),
        );
    }
}

/// The media type of every problem document ([`crate::problem::Problem`], RFC 9457).
const PROBLEM_JSON: &str = "application/problem+json";

/// The responses that shared code gives to any operation, added where an operation's annotation
/// does not list them (each with the problem document as its body, as the server sends them):
///
/// - 400: the query string does not parse (`problem::query_error`) or a JSON body is malformed,
///   has an unknown field or an invalid value (`problem::json_error`), for operations with query
///   parameters or a request body;
/// - 401 and 403: the bearer token is missing or invalid (`auth`), or lacks a scope or role, for
///   operations that take one;
/// - 404: a path parameter does not parse (`openapi::path_error`), or names nothing, for
///   operations with path parameters;
/// - 413: the body is larger than 64 KiB, for operations with a body (`problem::json_error`,
///   `server::problem_errors`); 415: a required JSON body is not `application/json`;
/// - 503 `storage-full` with `Retry-After`, for every write;
/// - 429 `rate-limited` with `Retry-After`, for every operation but the health probes
///   (`ratelimit`).
///
/// It also gives every problem response its real media type, `application/problem+json`, and
/// every integer the range of its Rust type (utoipa's `non_strict_integers` names it in
/// `format`; JSON Schema validators ignore formats, and a seat of 300 would otherwise be valid
/// by the document but refused by the server).
struct Contract;

impl utoipa::Modify for Contract {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for (path, item) in openapi.paths.paths.iter_mut() {
            for (write, op) in [
                (false, &mut item.get),
                (true, &mut item.put),
                (true, &mut item.post),
                (true, &mut item.delete),
                (true, &mut item.patch),
            ]
            .into_iter()
            .filter_map(|(w, op)| op.as_mut().map(|op| (w, op)))
            {
                document_shared_responses(path, op);
                if write {
                    add_storage_full(op);
                }
                for p in op.parameters.iter_mut().flatten() {
                    if let RefOr::T(p) = p {
                        p.schema.iter_mut().for_each(bound_integers);
                        // A parameter is absent or has a value: `null` has no spelling in a
                        // query string or a header (utoipa writes `Option<T>` as nullable).
                        if let Some(RefOr::T(Schema::Object(o))) = &mut p.schema
                            && let SchemaType::Array(types) = &mut o.schema_type
                        {
                            types.retain(|t| *t != Type::Null);
                            if let [only] = types.as_slice() {
                                o.schema_type = SchemaType::Type(only.clone());
                            }
                        }
                    }
                }
                if let Some(RefOr::T(body)) = &mut op.request_body {
                    for c in body.content.values_mut() {
                        if let RefOr::T(c) = c {
                            c.schema.iter_mut().for_each(bound_integers);
                        }
                    }
                }
            }
        }
        if let Some(c) = &mut openapi.components {
            c.schemas.values_mut().for_each(bound_integers);
            for name in CLOSED_VARIANTS {
                if let Some(RefOr::T(Schema::OneOf(one))) = c.schemas.get_mut(*name) {
                    for v in &mut one.items {
                        if let RefOr::T(Schema::Object(o)) = v
                            && o.properties.len() > 1
                        {
                            o.additional_properties = Some(Box::new(AdditionalProperties::FreeForm(false)));
                        }
                    }
                }
            }
            table_settings(c);
            any_game(c);
        }
    }
}

/// `POST /api/v1/tables`: its `settings` are the engine's `Settings` but for `players` (given
/// at the top level) and `hold_windows` (set by the server), documented as `TableSettings`
/// (the code reads them as JSON to merge `players` in); and tables created directly are
/// practice tables (`practice: false` is refused).
fn table_settings(c: &mut utoipa::openapi::Components) {
    use utoipa::openapi::schema::{AnyOfBuilder, Object};
    for (game, from, to) in [
        ("The Final Flicker", "Settings", "TableSettings"),
        ("Let's Call the Exorcist", "ExorcistSettings", "ExorcistTableSettings"),
    ] {
        let Some(RefOr::T(Schema::Object(settings))) = c.schemas.get(from).cloned() else { return };
        let mut table = settings;
        for field in ["players", "hold_windows"] {
            table.properties.remove(field);
            table.required.retain(|r| r != field);
        }
        table.description = Some(format!(
            "{game}'s settings (R10.11) of a table created directly: `{from}` but for `players` (given at the top \
             level) and `hold_windows` (set by the server)."
        ));
        c.schemas.insert(to.into(), RefOr::T(Schema::Object(table)));
    }
    if let Some(RefOr::T(Schema::Object(body))) = c.schemas.get_mut("CreateTableBody") {
        if let Some(RefOr::T(Schema::Object(p))) = body.properties.get_mut("practice") {
            p.enum_values = Some(vec![serde_json::Value::Bool(true)]);
        }
        if let Some(RefOr::T(Schema::Object(s))) = body.properties.get("settings") {
            // Either game's settings (an empty object is both): `anyOf`.
            let settings = AnyOfBuilder::new()
                .item(Ref::from_schema_name("TableSettings"))
                .item(Ref::from_schema_name("ExorcistTableSettings"))
                .item(Object::with_type(Type::Null))
                .description(s.description.clone())
                .build();
            body.properties.insert("settings".into(), RefOr::T(Schema::AnyOf(settings)));
        }
    }
}

/// The bodies that carry a table's game's prompt, answer, view or event (`AnyView`, ...) are one
/// of the hosted games' types, told apart by `table.game` rather than by their shape (both
/// games have, say, a `game_created` event): `anyOf`, not `oneOf`.
fn any_game(c: &mut utoipa::openapi::Components) {
    use utoipa::openapi::schema::AnyOfBuilder;
    for name in ["AnyView", "AnyPrompt", "AnyAnswer", "AnyViewEvent"] {
        if let Some(RefOr::T(Schema::OneOf(one))) = c.schemas.get(name).cloned() {
            let any = one.items.into_iter().fold(AnyOfBuilder::new(), |b, item| b.item(item));
            c.schemas.insert(name.into(), RefOr::T(Schema::AnyOf(any.description(one.description).build())));
        }
    }
}

/// Internally tagged enums of the engine with `deny_unknown_fields`: each variant with fields
/// is a closed object (utoipa marks structs so, not enum variants). Serde ignores unknown fields
/// next to the tag of a unit variant (`{"answer": "endure", "x": 1}` is `endure`), so those stay
/// open. Checked by a test below.
const CLOSED_VARIANTS: &[&str] = &["Answer", "Action_CardRef", "Ability_CardRef", "FirstPlayer"];

/// Sets `minimum` and `maximum` of every integer schema in `schema` from its `format` (keeping
/// tighter bounds the annotations give), and spells the format as the OpenAPI format registry
/// does (`uint8`; utoipa writes `u-int8`). An integer without a format but with a `minimum` of 0
/// or more is a `usize` (64 bits on the server).
fn bound_integers(schema: &mut RefOr<utoipa::openapi::Schema>) {
    use utoipa::Number;
    use utoipa::openapi::schema::{ArrayItems, KnownFormat, SchemaFormat};
    let RefOr::T(schema) = schema else { return };
    match schema {
        Schema::Object(o) => {
            let value = |n: &Number| match *n {
                Number::Int(i) => i as i128,
                Number::UInt(u) => u as i128,
                Number::Float(f) => f as i128,
            };
            let integer = matches!(&o.schema_type, SchemaType::Type(Type::Integer))
                || matches!(&o.schema_type, SchemaType::Array(t) if t.contains(&Type::Integer));
            let (range, name): (Option<(i128, i128)>, Option<&str>) = match &o.format {
                Some(SchemaFormat::KnownFormat(f)) => match f {
                    KnownFormat::Int8 => (Some((i8::MIN.into(), i8::MAX.into())), Some("int8")),
                    KnownFormat::Int16 => (Some((i16::MIN.into(), i16::MAX.into())), Some("int16")),
                    KnownFormat::Int32 => (Some((i32::MIN.into(), i32::MAX.into())), None),
                    KnownFormat::Int64 => (Some((i64::MIN.into(), i64::MAX.into())), None),
                    KnownFormat::UInt8 => (Some((0, u8::MAX.into())), Some("uint8")),
                    KnownFormat::UInt16 => (Some((0, u16::MAX.into())), Some("uint16")),
                    KnownFormat::UInt32 => (Some((0, u32::MAX.into())), Some("uint32")),
                    KnownFormat::UInt64 => (Some((0, u64::MAX.into())), Some("uint64")),
                    _ => (None, None),
                },
                None if integer && o.minimum.as_ref().is_some_and(|m| value(m) >= 0) => {
                    (Some((0, u64::MAX.into())), None)
                }
                _ => (None, None),
            };
            if let Some(name) = name {
                o.format = Some(SchemaFormat::Custom(name.to_string()));
            }
            if let Some((lo, hi)) = range {
                let number = |n: i128| match usize::try_from(n) {
                    Ok(u) => Number::UInt(u),
                    Err(_) => Number::Int(n as isize),
                };
                let lo = o.minimum.as_ref().map_or(lo, |m| value(m).max(lo));
                let hi = o.maximum.as_ref().map_or(hi, |m| value(m).min(hi));
                o.minimum = Some(number(lo));
                o.maximum = Some(number(hi));
            }
            o.properties.values_mut().for_each(bound_integers);
            if let Some(a) = &mut o.additional_properties
                && let AdditionalProperties::RefOr(r) = a.as_mut()
            {
                bound_integers(r);
            }
        }
        Schema::Array(a) => {
            if let ArrayItems::RefOrSchema(items) = &mut a.items {
                bound_integers(items);
            }
            for item in &mut a.prefix_items {
                let mut r = RefOr::T(std::mem::take(item));
                bound_integers(&mut r);
                if let RefOr::T(s) = r {
                    *item = s;
                }
            }
        }
        Schema::OneOf(s) => s.items.iter_mut().for_each(bound_integers),
        Schema::AllOf(s) => s.items.iter_mut().for_each(bound_integers),
        Schema::AnyOf(s) => s.items.iter_mut().for_each(bound_integers),
        _ => {}
    }
}

fn problem(description: &str) -> ResponseBuilder {
    ResponseBuilder::new()
        .description(description)
        .content(PROBLEM_JSON, Content::new(Some(Ref::from_schema_name("Problem"))))
}

/// Every write may meet a full store: 503 `storage-full` with `Retry-After`.
fn add_storage_full(op: &mut Operation) {
    let retry = HeaderBuilder::new()
        .schema(Some(utoipa::openapi::schema::Object::with_type(utoipa::openapi::schema::Type::Integer)))
        .description(Some("Seconds to wait before retrying"))
        .build();
    op.responses.responses.entry("503".to_string()).or_insert_with(|| {
        RefOr::T(
            problem("`storage-full`: the event store has no room to write; nothing was changed")
                .header("Retry-After", retry)
                .build(),
        )
    });
}

fn document_shared_responses(path: &str, op: &mut Operation) {
    let is_problem = |c: &RefOr<Content>| matches!(c, RefOr::T(c) if matches!(&c.schema, Some(RefOr::Ref(r)) if r.ref_location == "#/components/schemas/Problem"));
    for response in op.responses.responses.values_mut() {
        if let RefOr::T(r) = response
            && let Some(content) = r.content.shift_remove("application/json")
        {
            let media = if is_problem(&content) { PROBLEM_JSON } else { "application/json" };
            r.content.insert(media.to_string(), content);
        }
    }
    let params = op.parameters.iter().flatten();
    let has = |place: ParameterIn| {
        params.clone().any(
            |p| matches!(p, RefOr::T(p) if std::mem::discriminant(&p.parameter_in) == std::mem::discriminant(&place)),
        )
    };
    let body = op.request_body.as_ref().map(|b| match b {
        RefOr::T(b) => matches!(b.required, Some(utoipa::openapi::Required::True)),
        RefOr::Ref(_) => true,
    });
    let bearer = op.security.iter().flatten().any(|s| serde_json::to_value(s).is_ok_and(|v| v.get("bearer").is_some()));
    let mut add = |status: &str, response: ResponseBuilder| {
        op.responses.responses.entry(status.to_string()).or_insert_with(|| RefOr::T(response.build()));
    };
    if has(ParameterIn::Query) || body.is_some() {
        add("400", problem("The query string or the JSON body is malformed, has an unknown field or an invalid value"));
    }
    if bearer {
        add("401", problem("The bearer token is missing or not valid"));
        add("403", problem("The token lacks a scope, or the account may not do this"));
    }
    if has(ParameterIn::Path) {
        add("404", problem("Not found"));
    }
    if body.is_some() {
        add("413", problem("The body is larger than 64 KiB"));
    }
    if body == Some(true) {
        add("415", problem("The body is not `application/json`"));
    }
    if path != "/healthz" && path != "/readyz" {
        let retry = HeaderBuilder::new()
            .schema(Some(utoipa::openapi::schema::Object::with_type(utoipa::openapi::schema::Type::Integer)))
            .description(Some("Seconds to wait before retrying"))
            .build();
        add("429", problem("Rate limited (per token, then per address)").header("Retry-After", retry));
    }
}

/// The methods the API document lists for `path`, a request path, or `None` when no documented
/// path matches. A `{param}` segment of the document matches any one segment; when several
/// documented paths match, the most specific wins (the most literal segments, as a router
/// picks: `/gatherings/g/bracket` is `{id}/bracket`, not `{id}/{action}`).
pub fn allowed_methods(path: &str) -> Option<Vec<&'static str>> {
    static PATHS: OnceLock<Vec<(Vec<String>, Vec<&'static str>)>> = OnceLock::new();
    let paths = PATHS.get_or_init(|| {
        document()
            .paths
            .paths
            .into_iter()
            .map(|(template, item)| {
                let methods = [
                    ("GET", item.get.is_some()),
                    ("PUT", item.put.is_some()),
                    ("POST", item.post.is_some()),
                    ("DELETE", item.delete.is_some()),
                    ("PATCH", item.patch.is_some()),
                ];
                let segments = template.split('/').map(str::to_string).collect();
                (segments, methods.into_iter().filter(|(_, on)| *on).map(|(m, _)| m).collect())
            })
            .collect()
    });
    let request: Vec<&str> = path.split('/').collect();
    paths
        .iter()
        .filter(|(segments, _)| {
            segments.len() == request.len()
                && segments.iter().zip(&request).all(|(t, r)| t == r || (t.starts_with('{') && !r.is_empty()))
        })
        .max_by_key(|(segments, _)| segments.iter().filter(|t| !t.starts_with('{')).count())
        .map(|(_, methods)| methods.clone())
}

/// Maps path errors to problems: 405 when the method is not one the API document lists for the
/// path (`POST /api/v1/gatherings/{id}/settings` reaches the `{id}/{action}` route), else 404.
pub fn path_error(err: actix_web::error::PathError, req: &actix_web::HttpRequest) -> actix_web::Error {
    match method_not_allowed(req.method(), req.path()) {
        Some(res) => actix_web::error::InternalError::from_response(err, res).into(),
        None => crate::problem::Problem::not_found(err.to_string()).into(),
    }
}

/// 405 `method-not-allowed` with `Allow`, when `path` is a documented API path that does not
/// take `method` (`None` otherwise: then the request is a 404).
pub fn method_not_allowed(method: &actix_web::http::Method, path: &str) -> Option<actix_web::HttpResponse> {
    use actix_web::http::header;
    let allowed = allowed_methods(path)?;
    if allowed.contains(&method.as_str()) {
        return None;
    }
    let allow = allowed.join(", ");
    let p = crate::problem::Problem::new(
        actix_web::http::StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        "Method not allowed",
        format!("{path} takes {allow}"),
    );
    let mut res = actix_web::ResponseError::error_response(&p);
    res.headers_mut().insert(header::ALLOW, header::HeaderValue::from_str(&allow).expect("method names"));
    Some(res)
}

/// The document as pretty JSON (the committed form).
pub fn json() -> String {
    document().to_pretty_json().expect("openapi json") + "\n"
}

#[cfg(test)]
mod tests {
    /// The committed `openapi/openapi.json` must equal what the code generates. Regenerate it
    /// with `cargo run -- openapi > openapi/openapi.json`.
    #[test]
    fn committed_openapi_matches_the_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../openapi/openapi.json");
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        let generated = super::json();
        assert!(
            committed == generated,
            "openapi/openapi.json is stale: run `cargo run -- openapi > openapi/openapi.json` and commit it"
        );
        let v: serde_json::Value = serde_json::from_str(&generated).unwrap();
        assert!(v["openapi"].as_str().unwrap().starts_with("3.1"));
    }

    #[test]
    fn documented_paths_give_their_methods() {
        use super::allowed_methods;
        assert_eq!(allowed_methods("/healthz"), Some(vec!["GET"]));
        assert_eq!(allowed_methods("/api/v1/tables"), Some(vec!["GET", "POST"]));
        assert_eq!(allowed_methods("/api/v1/tables/abc/answers"), Some(vec!["POST"]));
        // `{id}/{action}` (POST) and `{id}/bracket` (GET) both match: the more literal wins.
        assert_eq!(allowed_methods("/api/v1/gatherings/g1/bracket"), Some(vec!["GET"]));
        assert_eq!(allowed_methods("/api/v1/gatherings/g1/settings"), Some(vec!["PUT"]));
        assert_eq!(allowed_methods("/api/v1/gatherings/g1/start"), Some(vec!["POST"]));
        assert_eq!(allowed_methods("/api/v1/tables//answers"), None);
        assert_eq!(allowed_methods("/api/v1/nothing"), None);
        assert_eq!(allowed_methods("/docs/"), None);
    }

    /// The enums `CLOSED_VARIANTS` marks closed do refuse unknown fields.
    #[test]
    fn closed_variants_refuse_unknown_fields() {
        use final_flicker::{Action, CardRef, FirstPlayer, classes::abilities::Ability};
        let extra = |v: serde_json::Value| {
            let mut v = v;
            v["surplus_field"] = 1.into();
            v
        };
        let answer = serde_json::json!({"answer": "panic", "ghost": 1});
        let unit = serde_json::json!({"answer": "endure"});
        let action = serde_json::json!({"action": "drain", "card": 1});
        let ability = serde_json::json!({"ability": "seer", "target": 0});
        let first = serde_json::json!({"mode": "first", "seat": 0});
        assert!(serde_json::from_value::<final_flicker::Answer>(answer.clone()).is_ok());
        assert!(serde_json::from_value::<final_flicker::Answer>(extra(answer)).is_err());
        // A unit variant takes unknown fields: documented open.
        assert!(serde_json::from_value::<final_flicker::Answer>(extra(unit)).is_ok());
        assert!(serde_json::from_value::<Action<CardRef>>(action.clone()).is_ok());
        assert!(serde_json::from_value::<Action<CardRef>>(extra(action)).is_err());
        assert!(serde_json::from_value::<Ability<CardRef>>(ability.clone()).is_ok());
        assert!(serde_json::from_value::<Ability<CardRef>>(extra(ability)).is_err());
        assert!(serde_json::from_value::<FirstPlayer>(first.clone()).is_ok());
        assert!(serde_json::from_value::<FirstPlayer>(extra(first)).is_err());
        let v: serde_json::Value = serde_json::from_str(&super::json()).unwrap();
        for name in super::CLOSED_VARIANTS {
            let variants = v["components"]["schemas"][name]["oneOf"].as_array().unwrap();
            for variant in variants {
                let closed = variant["properties"].as_object().unwrap().len() > 1;
                assert_eq!(variant["additionalProperties"] == false, closed, "{name}: {variant}");
            }
        }
    }

    #[test]
    fn problems_are_documented_as_problem_json() {
        let v: serde_json::Value = serde_json::from_str(&super::json()).unwrap();
        for (path, item) in v["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                for (status, r) in op["responses"].as_object().unwrap() {
                    let json = &r["content"]["application/json"]["schema"]["$ref"];
                    assert!(json != "#/components/schemas/Problem", "{method} {path} {status}");
                    if status != "200" && status != "201" && status != "204" && path != "/healthz" {
                        assert!(r["content"]["application/problem+json"].is_object(), "{method} {path} {status}");
                    }
                }
            }
        }
    }
}
