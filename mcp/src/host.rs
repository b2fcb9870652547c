//! The host's approval over MCP: elicitation, inline on 2025-06-18 and 2025-11-25 sessions,
//! and as an input-required result on the 2026-07-28 protocol.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequests, InputRequiredResult, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};
use serde_json::{Value, json};

use toolspec_core::ToolError;
use toolspec_core::clock::Clock;
use toolspec_core::engine::{ApprovalRequest, BoxFuture, Host, HostAnswer};

/// The key of the approval in an input-required result's `inputRequests`.
const INPUT_KEY: &str = "approval";

/// The host of a call, when its client declared it can elicit (form mode); `None` otherwise.
pub(super) fn host_for(
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Option<Arc<dyn Host>> {
    let caps = context.client_capabilities()?;
    let elicitation = caps.elicitation?;
    // An empty capability object (2025-06-18) means form mode.
    if elicitation.form.is_none() && elicitation.url.is_some() {
        return None;
    }
    let client = context
        .client_info()
        .map_or_else(|| "unknown client".to_owned(), |i| i.name);
    let name = format!("host:{}", toolspec_core::engine::for_person(&client, 64));
    let rounds = context
        .protocol_version()
        .is_some_and(|v| protocol_at_least(&v, &ProtocolVersion::V_2026_07_28));
    if rounds {
        let resumed = request.request_state.clone().map(|state| {
            let action = request
                .input_responses
                .as_ref()
                .and_then(|r| r.get(INPUT_KEY))
                .and_then(|v| v.get("action"))
                .and_then(Value::as_str)
                .map(str::to_owned);
            (state, action)
        });
        Some(Arc::new(RoundsHost { name, resumed }))
    } else {
        Some(Arc::new(PeerHost {
            name,
            peer: context.peer.clone(),
        }))
    }
}

fn protocol_at_least(v: &ProtocolVersion, floor: &ProtocolVersion) -> bool {
    // Versions are dates, so their text orders like them.
    let text = |p: &ProtocolVersion| {
        serde_json::to_value(p)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
    };
    matches!((text(v), text(floor)), (Some(a), Some(b)) if a >= b)
}

/// The elicitation showing `message`: a form with no fields, so the person only accepts,
/// declines or cancels.
fn elicit_params(message: &str) -> Result<ElicitRequestParams, String> {
    let schema: ElicitationSchema =
        serde_json::from_value(json!({"type": "object", "properties": {}}))
            .map_err(|e| e.to_string())?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message.to_owned(),
        requested_schema: schema,
    })
}

fn answer(action: &ElicitationAction) -> HostAnswer {
    match action {
        ElicitationAction::Accept => HostAnswer::Accept,
        ElicitationAction::Decline => HostAnswer::Decline,
        // Cancel, and any action a later protocol adds: nothing was approved.
        _ => HostAnswer::Cancel,
    }
}

/// Asks inline with `elicitation/create` (session protocols up to 2025-11-25).
struct PeerHost {
    name: String,
    peer: Peer<RoleServer>,
}

impl Host for PeerHost {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, HostAnswer> {
        Box::pin(async move {
            let params = match elicit_params(&request.message) {
                Ok(p) => p,
                Err(e) => return HostAnswer::Failed(e),
            };
            // The person may take their time, but not past the preview's expiry.
            let now_ms = toolspec_core::clock::SystemClock.now_ms();
            let wait = u64::try_from(request.expires_at_ms.saturating_sub(now_ms)).unwrap_or(0);
            let timeout = Some(Duration::from_millis(wait));
            match self
                .peer
                .create_elicitation_with_timeout(params, timeout)
                .await
            {
                Ok(result) => answer(&result.action),
                Err(e) => HostAnswer::Failed(e.to_string()),
            }
        })
    }
}

/// Asks across rounds (2026-07-28): the first round answers with an input-required result
/// ([`input_required`]); the client asks the person and calls again with the answer and
/// the `requestState` (the preview id), which this host then reports.
struct RoundsHost {
    name: String,
    resumed: Option<(String, Option<String>)>,
}

impl Host for RoundsHost {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, HostAnswer> {
        let found = match &self.resumed {
            Some((state, action)) if *state == request.preview_id => match action.as_deref() {
                Some("accept") => HostAnswer::Accept,
                Some("decline") => HostAnswer::Decline,
                // A round that brings no answer dismissed the question.
                _ => HostAnswer::Cancel,
            },
            _ => HostAnswer::Later,
        };
        Box::pin(std::future::ready(found))
    }

    fn resumed_preview(&self) -> Option<&str> {
        self.resumed.as_ref().map(|(state, _)| state.as_str())
    }
}

/// The input-required result for an `approval_pending` error of [`toolspec_core::engine::Runtime::gated`].
pub(super) fn input_required(error: &ToolError) -> Option<InputRequiredResult> {
    let preview_id = error.details.get("preview_id")?.as_str()?.to_owned();
    let params = elicit_params(&error.message).ok()?;
    let elicit: ElicitRequest = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": params,
    }))
    .ok()?;
    let mut requests = InputRequests::new();
    requests.insert(INPUT_KEY.to_owned(), InputRequest::Elicitation(elicit));
    Some(InputRequiredResult::new(Some(requests), Some(preview_id)))
}
