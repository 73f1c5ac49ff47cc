//! The `healthcheck` subcommand: a gRPC health client for container HEALTHCHECKs, because the
//! distroless image has no shell or `grpc_health_probe`.

use std::time::Duration;

use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};

/// Bound on connect + call, well under typical HEALTHCHECK timeouts.
const TIMEOUT: Duration = Duration::from_secs(3);

/// Asks `addr` for the overall server health (service ""). `Ok(true)` iff SERVING.
///
/// # Errors
/// Describes why the server could not be asked.
pub async fn check(addr: String) -> Result<bool, String> {
    let call = async {
        let endpoint = tonic::transport::Endpoint::from_shared(addr.clone())
            .map_err(|e| format!("invalid address {addr:?}: {e}"))?;
        let channel = endpoint
            .connect()
            .await
            .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
        let response = HealthClient::new(channel)
            .check(HealthCheckRequest {
                service: String::new(),
            })
            .await
            .map_err(|s| format!("health check failed: {s}"))?;
        Ok(response.into_inner().status == ServingStatus::Serving as i32)
    };
    tokio::time::timeout(TIMEOUT, call)
        .await
        .map_err(|_| format!("no answer from {addr} within {TIMEOUT:?}"))?
}
