//! The Supabase port (`tests/corpus/supabase.yaml`) served by a small in-memory account,
//! held to its generated gauntlet.
//!
//! The account holds what the spec's examples assume: organization acme-corp with the
//! projects shop (abcdefghijklmnopqrst, running, tables public.customers with 1,200 rows
//! and public.orders without row level security) and archive (zyxwvutsrqponmlkjihg,
//! paused). Its "Postgres" understands just enough SQL for the examples: `select count(*)
//! from <table>`, `select ... from <table>`, and any statement that names no table it lacks.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use toolspec_compile_check::corpus::supabase::*;
use toolspec_runtime::ToolError;
use toolspec_runtime::engine::Runtime;
use toolspec_runtime::store::Work;

const SHOP: &str = "abcdefghijklmnopqrst";
const ARCHIVE: &str = "zyxwvutsrqponmlkjihg";

/// One table of the fake database.
#[derive(Clone)]
struct Table {
    schema: &'static str,
    name: &'static str,
    rows: u64,
    rls: bool,
}

const TABLES: [Table; 3] = [
    Table {
        schema: "public",
        name: "customers",
        rows: 1200,
        rls: true,
    },
    Table {
        schema: "public",
        name: "orders",
        rows: 5400,
        rls: false,
    },
    Table {
        schema: "auth",
        name: "users",
        rows: 1200,
        rls: true,
    },
];

/// An in-memory Supabase account. Writes change it when their unit of work commits.
pub struct Account {
    projects: Arc<Mutex<Vec<Project>>>,
    migrations: Arc<Mutex<Vec<String>>>,
    next: AtomicU64,
}

fn project(id: &str, name: &str, status: ProjectStatus) -> Project {
    Project {
        id: id.into(),
        name: name.into(),
        organization_id: "acme-corp".into(),
        region: Region::EuCentral1,
        status,
        created_at: "2026-03-01T10:00:00Z".into(),
    }
}

/// A project ref from a number: 20 lowercase letters.
fn new_ref(n: u64) -> String {
    let mut out: Vec<u8> = b"newproject".to_vec();
    let mut rest = n;
    for _ in 0..10 {
        out.push(b'a' + (rest % 26) as u8);
        rest /= 26;
    }
    String::from_utf8(out).unwrap_or_default()
}

/// The table a statement reads or writes, if it names one after `from`, `into`, `update`,
/// `table` or `on`.
fn table_of(sql: &str) -> Option<String> {
    let words: Vec<String> = sql
        .split(|c: char| c.is_whitespace() || c == '(' || c == ';')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words
        .windows(2)
        .find(|w| ["from", "into", "update", "table", "on"].contains(&w[0].as_str()))
        .map(|w| w[1].trim_start_matches("public.").to_owned())
}

fn writes(sql: &str) -> bool {
    let first = sql.split_whitespace().next().unwrap_or("").to_lowercase();
    !matches!(first.as_str(), "select" | "with" | "explain" | "show")
}

fn statements(sql: &str) -> u64 {
    sql.split(';').filter(|s| !s.trim().is_empty()).count() as u64
}

/// The table a statement names, refused as Postgres would when the database lacks it.
fn known_table(sql: &str) -> Result<Option<&'static Table>, ToolError> {
    match table_of(sql) {
        None => Ok(None),
        Some(name) => TABLES
            .iter()
            .find(|t| t.name == name)
            .map(Some)
            .ok_or_else(|| {
                SupabaseError::SqlError {
                    error: format!("relation \"{name}\" does not exist"),
                }
                .into()
            }),
    }
}

impl Account {
    /// The account the examples describe.
    pub fn demo() -> Self {
        Account {
            projects: Arc::new(Mutex::new(vec![
                project(SHOP, "shop", ProjectStatus::ActiveHealthy),
                project(ARCHIVE, "archive", ProjectStatus::Inactive),
            ])),
            migrations: Arc::default(),
            next: AtomicU64::new(1),
        }
    }

    fn get(&self, id: &str) -> Result<Project, ToolError> {
        self.projects
            .lock()
            .unwrap()
            .iter()
            .find(|p| p.id == id)
            .cloned()
            .ok_or_else(|| {
                SupabaseError::ProjectNotFound {
                    project_id: id.into(),
                }
                .into()
            })
    }

    /// Moves `id` from `from` to `to` when `work` commits.
    fn set_status(
        &self,
        id: &str,
        from: ProjectStatus,
        to: ProjectStatus,
        work: &Work,
    ) -> Result<ProjectStatus, ToolError> {
        let p = self.get(id)?;
        if p.status != from {
            return Err(SupabaseError::WrongProjectStatus {
                project_id: id.into(),
                status: p.status,
                needed: from,
            }
            .into());
        }
        let (projects, id) = (Arc::clone(&self.projects), id.to_owned());
        work.on_commit(move || {
            if let Some(p) = projects.lock().unwrap().iter_mut().find(|p| p.id == id) {
                p.status = to;
            }
        });
        Ok(to)
    }
}

impl SupabaseTools for Account {
    async fn supabase_list_projects(
        &self,
        _input: SupabaseListProjectsInput,
    ) -> Result<SupabaseListProjectsOutput, ToolError> {
        Ok(SupabaseListProjectsOutput {
            projects: self.projects.lock().unwrap().clone(),
        })
    }

    async fn supabase_get_project(
        &self,
        input: SupabaseGetProjectInput,
    ) -> Result<SupabaseGetProjectOutput, ToolError> {
        Ok(SupabaseGetProjectOutput {
            project: self.get(&input.id)?,
        })
    }

    async fn preview_supabase_create_project(
        &self,
        input: SupabaseCreateProjectInput,
    ) -> Result<SupabaseCreateProjectPreview, ToolError> {
        if input.organization_id != "acme-corp" {
            return Err(SupabaseError::OrganizationNotFound {
                organization_id: input.organization_id,
            }
            .into());
        }
        Ok(SupabaseCreateProjectPreview {
            monthly_cost: 10.0,
            currency: SupabaseCreateProjectPreviewCurrency::Usd,
            summary: Some(format!("Create project {} for $10 a month.", input.name)),
        })
    }

    async fn supabase_create_project(
        &self,
        input: SupabaseCreateProjectInput,
        _preview: SupabaseCreateProjectPreview,
        work: Work,
    ) -> Result<SupabaseCreateProjectOutput, ToolError> {
        let mut created = project(
            &new_ref(self.next.fetch_add(1, Ordering::SeqCst)),
            &input.name,
            ProjectStatus::ComingUp,
        );
        created.region = input.region.unwrap_or(Region::EuCentral1);
        created.organization_id = input.organization_id;
        created.created_at = "2026-12-01T09:00:00Z".into();
        let (projects, stored) = (Arc::clone(&self.projects), created.clone());
        work.on_commit(move || projects.lock().unwrap().push(stored));
        Ok(SupabaseCreateProjectOutput { project: created })
    }

    async fn supabase_pause_project(
        &self,
        input: SupabasePauseProjectInput,
        work: Work,
    ) -> Result<SupabasePauseProjectOutput, ToolError> {
        let status = self.set_status(
            &input.project_id,
            ProjectStatus::ActiveHealthy,
            ProjectStatus::Inactive,
            &work,
        )?;
        Ok(SupabasePauseProjectOutput {
            project_id: input.project_id,
            status,
        })
    }

    async fn supabase_restore_project(
        &self,
        input: SupabaseRestoreProjectInput,
        work: Work,
    ) -> Result<SupabaseRestoreProjectOutput, ToolError> {
        let status = self.set_status(
            &input.project_id,
            ProjectStatus::Inactive,
            ProjectStatus::ActiveHealthy,
            &work,
        )?;
        Ok(SupabaseRestoreProjectOutput {
            project_id: input.project_id,
            status,
        })
    }

    async fn supabase_list_tables(
        &self,
        input: SupabaseListTablesInput,
    ) -> Result<SupabaseListTablesOutput, ToolError> {
        self.get(&input.project_id)?;
        let column = |name: &str, data_type: &str, default: Option<&str>| {
            SupabaseListTablesOutputTablesItemColumnsItem {
                name: name.into(),
                data_type: data_type.into(),
                default_value: default.map(str::to_owned),
            }
        };
        let tables = TABLES
            .iter()
            .filter(|t| input.schemas.iter().any(|s| s == t.schema))
            .map(|t| SupabaseListTablesOutputTablesItem {
                schema: t.schema.into(),
                name: t.name.into(),
                rls_enabled: t.rls,
                rows: t.rows,
                columns: vec![
                    column("id", "bigint", None),
                    column("created_at", "timestamptz", Some("now()")),
                ],
            })
            .collect();
        Ok(SupabaseListTablesOutput { tables })
    }

    async fn preview_supabase_apply_migration(
        &self,
        input: SupabaseApplyMigrationInput,
    ) -> Result<SupabaseApplyMigrationPreview, ToolError> {
        self.get(&input.project_id)?;
        known_table(&input.query)?;
        let n = statements(&input.query);
        Ok(SupabaseApplyMigrationPreview {
            statements: n,
            summary: Some(format!("Apply migration {} ({n} statements).", input.name)),
        })
    }

    async fn supabase_apply_migration(
        &self,
        input: SupabaseApplyMigrationInput,
        _preview: SupabaseApplyMigrationPreview,
        work: Work,
    ) -> Result<SupabaseApplyMigrationOutput, ToolError> {
        self.get(&input.project_id)?;
        known_table(&input.query)?;
        let version = format!("2026120109{:04}", self.next.fetch_add(1, Ordering::SeqCst));
        let (migrations, name) = (Arc::clone(&self.migrations), input.name.clone());
        work.on_commit(move || migrations.lock().unwrap().push(name));
        Ok(SupabaseApplyMigrationOutput {
            version,
            name: input.name,
        })
    }

    async fn preview_supabase_execute_sql(
        &self,
        input: SupabaseExecuteSqlInput,
    ) -> Result<SupabaseExecuteSqlPreview, ToolError> {
        self.get(&input.project_id)?;
        known_table(&input.query)?;
        let writes = writes(&input.query);
        Ok(SupabaseExecuteSqlPreview {
            writes,
            summary: Some(if writes {
                "Run SQL that changes data.".into()
            } else {
                "Run a read-only query.".into()
            }),
        })
    }

    async fn supabase_execute_sql(
        &self,
        input: SupabaseExecuteSqlInput,
        _preview: SupabaseExecuteSqlPreview,
        _work: Work,
    ) -> Result<SupabaseExecuteSqlOutput, ToolError> {
        self.get(&input.project_id)?;
        let table = known_table(&input.query)?;
        let row = |v: Value| -> Map<String, Value> {
            match v {
                Value::Object(m) => m,
                _ => Map::new(),
            }
        };
        let rows = match table {
            Some(t) if input.query.to_lowercase().contains("count(") => {
                vec![row(json!({ "count": t.rows }))]
            }
            Some(t) => (1..=t.rows.min(3))
                .map(|i| row(json!({ "id": i, "table": t.name })))
                .collect(),
            None => Vec::new(),
        };
        Ok(SupabaseExecuteSqlOutput { rows })
    }

    async fn supabase_get_logs(
        &self,
        input: SupabaseGetLogsInput,
    ) -> Result<SupabaseGetLogsOutput, ToolError> {
        self.get(&input.project_id)?;
        let logs = match input.service {
            SupabaseGetLogsInputService::Postgres => vec![SupabaseGetLogsOutputLogsItem {
                timestamp: "2026-12-01T09:00:00Z".into(),
                event_message: "connection authorized: user=postgres".into(),
            }],
            _ => Vec::new(),
        };
        Ok(SupabaseGetLogsOutput { logs })
    }

    async fn supabase_get_advisors(
        &self,
        input: SupabaseGetAdvisorsInput,
    ) -> Result<SupabaseGetAdvisorsOutput, ToolError> {
        self.get(&input.project_id)?;
        let advisors = match input.r#type {
            SupabaseGetAdvisorsInputType::Security => TABLES
                .iter()
                .filter(|t| !t.rls && t.schema == "public")
                .map(|t| SupabaseGetAdvisorsOutputAdvisorsItem {
                    name: "rls_disabled_in_public".into(),
                    title: "RLS Disabled in Public".into(),
                    level: SupabaseGetAdvisorsOutputAdvisorsItemLevel::Error,
                    detail: format!(
                        "Table public.{} is public, but RLS has not been enabled.",
                        t.name
                    ),
                    remediation: "https://supabase.com/docs/guides/database/database-linter".into(),
                })
                .collect(),
            SupabaseGetAdvisorsInputType::Performance => Vec::new(),
        };
        Ok(SupabaseGetAdvisorsOutput { advisors })
    }

    async fn supabase_generate_typescript_types(
        &self,
        input: SupabaseGenerateTypescriptTypesInput,
    ) -> Result<SupabaseGenerateTypescriptTypesOutput, ToolError> {
        self.get(&input.project_id)?;
        let mut types = String::from("export type Database = {\n  public: {\n    Tables: {\n");
        for t in TABLES.iter().filter(|t| t.schema == "public") {
            types.push_str(&format!(
                "      {}: {{ Row: {{ id: number; created_at: string }} }}\n",
                t.name
            ));
        }
        types.push_str("    }\n  }\n}\n");
        Ok(SupabaseGenerateTypescriptTypesOutput { types })
    }
}

/// The server under test, around a fresh demo account.
pub fn fixture(runtime: Runtime) -> SupabaseServer<Account> {
    SupabaseServer::new(Account::demo(), runtime)
}

include!("../../../../corpus/generated/supabase/supabase_gauntlet.rs");

supabase_gauntlet!(fixture);

/// The gauntlet's facts (the spec's tools and examples), for the MCP test.
pub(super) static FACTS: &::toolspec_runtime::gauntlet::Facts = &SUPABASE_GAUNTLET;
