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

/// What a project costs every organization of the fake.
const PROJECT_COST: f64 = 10.0;

/// The confirmation of a cost, as confirm_cost gives it: made from the cost, so that
/// create_project can tell which cost it confirms (the original hashes the same facts).
fn confirmation(kind: CostType, recurrence: Recurrence, amount: f64) -> String {
    format!("cost-{kind}-{recurrence}-{amount}")
}

fn organization(id: &str) -> Result<(), ToolError> {
    if id == "acme-corp" {
        Ok(())
    } else {
        Err(SupabaseError::OrganizationNotFound {
            organization_id: id.into(),
        }
        .into())
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
    async fn list_projects(
        &self,
        _input: ListProjectsInput,
    ) -> Result<ListProjectsOutput, ToolError> {
        Ok(ListProjectsOutput {
            projects: self.projects.lock().unwrap().clone(),
        })
    }

    async fn get_project(&self, input: GetProjectInput) -> Result<GetProjectOutput, ToolError> {
        Ok(GetProjectOutput {
            project: self.get(&input.id)?,
        })
    }

    async fn get_cost(&self, input: GetCostInput) -> Result<GetCostOutput, ToolError> {
        organization(&input.organization_id)?;
        let (amount, recurrence) = match input.r#type {
            CostType::Project => (PROJECT_COST, Recurrence::Monthly),
            CostType::Branch => (0.01344, Recurrence::Hourly),
        };
        Ok(GetCostOutput {
            amount,
            recurrence,
            currency: GetCostOutputCurrency::Usd,
        })
    }

    async fn confirm_cost(&self, input: ConfirmCostInput) -> Result<ConfirmCostOutput, ToolError> {
        Ok(ConfirmCostOutput {
            confirm_cost_id: confirmation(input.r#type, input.recurrence, input.amount),
        })
    }

    async fn preview_create_project(
        &self,
        input: CreateProjectInput,
    ) -> Result<CreateProjectPreview, ToolError> {
        organization(&input.organization_id)?;
        let confirmed = confirmation(CostType::Project, Recurrence::Monthly, PROJECT_COST);
        if input.confirm_cost_id != confirmed {
            return Err(SupabaseError::CostNotConfirmed {
                confirm_cost_id: input.confirm_cost_id,
            }
            .into());
        }
        Ok(CreateProjectPreview {
            monthly_cost: PROJECT_COST,
            currency: CreateProjectPreviewCurrency::Usd,
            summary: Some(format!("Create project {} for $10 a month.", input.name)),
        })
    }

    async fn create_project(
        &self,
        input: CreateProjectInput,
        _preview: CreateProjectPreview,
        work: Work,
    ) -> Result<CreateProjectOutput, ToolError> {
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
        Ok(CreateProjectOutput { project: created })
    }

    async fn pause_project(
        &self,
        input: PauseProjectInput,
        work: Work,
    ) -> Result<PauseProjectOutput, ToolError> {
        let status = self.set_status(
            &input.project_id,
            ProjectStatus::ActiveHealthy,
            ProjectStatus::Inactive,
            &work,
        )?;
        Ok(PauseProjectOutput {
            project_id: input.project_id,
            status,
        })
    }

    async fn restore_project(
        &self,
        input: RestoreProjectInput,
        work: Work,
    ) -> Result<RestoreProjectOutput, ToolError> {
        let status = self.set_status(
            &input.project_id,
            ProjectStatus::Inactive,
            ProjectStatus::ActiveHealthy,
            &work,
        )?;
        Ok(RestoreProjectOutput {
            project_id: input.project_id,
            status,
        })
    }

    async fn list_tables(&self, input: ListTablesInput) -> Result<ListTablesOutput, ToolError> {
        self.get(&input.project_id)?;
        let column = |name: &str, data_type: &str, default: Option<&str>| {
            ListTablesOutputTablesItemColumnsItem {
                name: name.into(),
                data_type: data_type.into(),
                default_value: default.map(str::to_owned),
            }
        };
        let tables = TABLES
            .iter()
            .filter(|t| input.schemas.iter().any(|s| s == t.schema))
            .map(|t| ListTablesOutputTablesItem {
                schema: t.schema.into(),
                name: t.name.into(),
                rls_enabled: t.rls,
                rows: t.rows,
                // The compact list the original gives without `verbose`.
                primary_keys: input.verbose.then(|| vec!["id".to_owned()]),
                columns: input.verbose.then(|| {
                    vec![
                        column("id", "bigint", None),
                        column("created_at", "timestamptz", Some("now()")),
                    ]
                }),
            })
            .collect();
        Ok(ListTablesOutput { tables })
    }

    async fn preview_apply_migration(
        &self,
        input: ApplyMigrationInput,
    ) -> Result<ApplyMigrationPreview, ToolError> {
        self.get(&input.project_id)?;
        known_table(&input.query)?;
        let n = statements(&input.query);
        Ok(ApplyMigrationPreview {
            statements: n,
            summary: Some(format!("Apply migration {} ({n} statements).", input.name)),
        })
    }

    async fn apply_migration(
        &self,
        input: ApplyMigrationInput,
        _preview: ApplyMigrationPreview,
        work: Work,
    ) -> Result<ApplyMigrationOutput, ToolError> {
        self.get(&input.project_id)?;
        known_table(&input.query)?;
        let version = format!("2026120109{:04}", self.next.fetch_add(1, Ordering::SeqCst));
        let (migrations, name) = (Arc::clone(&self.migrations), input.name.clone());
        work.on_commit(move || migrations.lock().unwrap().push(name));
        Ok(ApplyMigrationOutput {
            version,
            name: input.name,
        })
    }

    async fn preview_execute_sql(
        &self,
        input: ExecuteSqlInput,
    ) -> Result<ExecuteSqlPreview, ToolError> {
        self.get(&input.project_id)?;
        known_table(&input.query)?;
        let writes = writes(&input.query);
        Ok(ExecuteSqlPreview {
            writes,
            summary: Some(if writes {
                "Run SQL that changes data.".into()
            } else {
                "Run a read-only query.".into()
            }),
        })
    }

    async fn execute_sql(
        &self,
        input: ExecuteSqlInput,
        _preview: ExecuteSqlPreview,
        _work: Work,
    ) -> Result<ExecuteSqlOutput, ToolError> {
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
        Ok(ExecuteSqlOutput { rows })
    }

    async fn get_logs(&self, input: GetLogsInput) -> Result<GetLogsOutput, ToolError> {
        self.get(&input.project_id)?;
        let logs = match input.service {
            GetLogsInputService::Postgres => vec![GetLogsOutputLogsItem {
                timestamp: "2026-12-01T09:00:00Z".into(),
                event_message: "connection authorized: user=postgres".into(),
            }],
            _ => Vec::new(),
        };
        Ok(GetLogsOutput { logs })
    }

    async fn get_advisors(&self, input: GetAdvisorsInput) -> Result<GetAdvisorsOutput, ToolError> {
        self.get(&input.project_id)?;
        let advisors = match input.r#type {
            GetAdvisorsInputType::Security => TABLES
                .iter()
                .filter(|t| !t.rls && t.schema == "public")
                .map(|t| GetAdvisorsOutputAdvisorsItem {
                    name: "rls_disabled_in_public".into(),
                    title: "RLS Disabled in Public".into(),
                    level: GetAdvisorsOutputAdvisorsItemLevel::Error,
                    detail: format!(
                        "Table public.{} is public, but RLS has not been enabled.",
                        t.name
                    ),
                    remediation: "https://supabase.com/docs/guides/database/database-linter".into(),
                })
                .collect(),
            GetAdvisorsInputType::Performance => Vec::new(),
        };
        Ok(GetAdvisorsOutput { advisors })
    }

    async fn generate_typescript_types(
        &self,
        input: GenerateTypescriptTypesInput,
    ) -> Result<GenerateTypescriptTypesOutput, ToolError> {
        self.get(&input.project_id)?;
        let mut types = String::from("export type Database = {\n  public: {\n    Tables: {\n");
        for t in TABLES.iter().filter(|t| t.schema == "public") {
            types.push_str(&format!(
                "      {}: {{ Row: {{ id: number; created_at: string }} }}\n",
                t.name
            ));
        }
        types.push_str("    }\n  }\n}\n");
        Ok(GenerateTypescriptTypesOutput { types })
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
