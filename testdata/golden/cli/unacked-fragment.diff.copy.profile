--- ../../testdata/unacked-fragment.pcap
+++ TMPDIR/copy.pcap
tolerances: rate=10%,latency=20ms,size=10%,bundling=20%,ratio=20%,share=5pp
0 outside tolerance, 0 accepted by the baseline, 0 within tolerance
