"""Tasks on other machines of the LAN, over SSH (asyncssh). Imported only when a config has
nodes: asyncssh alone costs ~150 ms to import."""
