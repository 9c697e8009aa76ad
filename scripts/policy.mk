# SPDX-License-Identifier: GPL-2.0-only
# The default policy: user/policy.ini -> $(SYSCONFDIR)/sclat/policy.ini.
# PREFIX=/usr puts it in /etc (the FHS place); any other prefix in $(PREFIX)/etc.
# An existing file is the administrator's: it is kept, and the new one is
# installed next to it as policy.ini.new.
SYSCONFDIR	?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)

.PHONY: install-policy
install-policy: user/policy.ini
	$(Q)install -d $(DESTDIR)$(SYSCONFDIR)/sclat
	$(Q)if [ -e $(DESTDIR)$(SYSCONFDIR)/sclat/policy.ini ] && \
	    ! cmp -s $< $(DESTDIR)$(SYSCONFDIR)/sclat/policy.ini; then \
		install -m 0644 $< $(DESTDIR)$(SYSCONFDIR)/sclat/policy.ini.new; \
		echo "  kept $(DESTDIR)$(SYSCONFDIR)/sclat/policy.ini; new one is policy.ini.new"; \
	else \
		install -m 0644 $< $(DESTDIR)$(SYSCONFDIR)/sclat/policy.ini; \
	fi

INSTALL_TARGETS	+= install-policy
