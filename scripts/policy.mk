# SPDX-License-Identifier: GPL-2.0-only
# The default policy: user/policy.ini -> $(SYSCONFDIR)/sclat/policy.ini, which
# sclat watch and record read when given neither --policy nor --threshold.
# SYSCONFDIR is /etc for every PREFIX (the FHS place for a host's settings);
# give the same SYSCONFDIR to make and make install to move it.
# An existing file is the administrator's: it is kept, and the new one is
# installed next to it as policy.ini.new.
SYSCONFDIR	?= /etc

# The path is compiled in; the stamp rebuilds what uses it when SYSCONFDIR changes.
CFLAGS		+= -DSCLAT_SYSCONFDIR='"$(SYSCONFDIR)"'
SYSCONFDIR_STAMP := $(OUTPUT)/sysconfdir.stamp

.PHONY: sysconfdir-force
$(SYSCONFDIR_STAMP): sysconfdir-force
	$(Q)mkdir -p $(@D)
	$(Q)echo '$(SYSCONFDIR)' | cmp -s - $@ || echo '$(SYSCONFDIR)' > $@

$(USER_OBJS) $(OUTPUT)/user/sclat.o: $(SYSCONFDIR_STAMP)

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
