#!/bin/sh
# SSH test host entrypoint: install the authorized key and the host key the
# test generated (mounted at /kchaos-ssh), then run sshd in the foreground.
set -e
if [ -f /kchaos-ssh/authorized_keys ]; then
  install -m 0600 /kchaos-ssh/authorized_keys /root/.ssh/authorized_keys
fi
if [ -f /kchaos-ssh/ssh_host_ed25519_key ]; then
  rm -f /etc/ssh/ssh_host_*
  install -m 0600 /kchaos-ssh/ssh_host_ed25519_key /etc/ssh/ssh_host_ed25519_key
  echo "HostKey /etc/ssh/ssh_host_ed25519_key" >> /etc/ssh/sshd_config
else
  ssh-keygen -A >/dev/null
fi
exec /usr/sbin/sshd -D -e
