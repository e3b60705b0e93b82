package exporter

// verdictUnfit are the settings (by flag) that do not fit the export of a
// verdict: its patch runs go on the job's verification span, never on a
// session, a provisioning span or beside another base.
var verdictUnfit = map[string]bool{"base": true, "session": true, "turn": true, "base-run": true}

// FitsVerdict reports whether the setting of flag applies to the export
// of a verdict (ExportVerdict), so that a command offers only those.
func FitsVerdict(flag string) bool { return !verdictUnfit[flag] }

// VerdictOptions checks s for the export of a verdict and returns its
// Options and the output file, as Options does, for ExportVerdict. The
// verdict is printed on stdout, so OTLP/JSON needs a file there. Its
// errors match ErrSettings.
func (s Settings) VerdictOptions(getenv func(string) string, environ func() []string) (Options, string, error) {
	o, outFile, err := s.Options(getenv, environ)
	if err == nil && o.Format == FormatOTLPJSON && outFile == "" {
		err = settingsf("--format otlp-json needs -o FILE here: stdout carries the verdict")
	}
	return o, outFile, err
}
