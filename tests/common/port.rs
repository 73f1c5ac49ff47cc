//! A free loopback port for tests that start the service binary themselves.

/// Reserves a free loopback port (released right away; the process under test binds it next).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}
