--- ../../testdata/captures/openbc-session-3.pcap
+++ TMPDIR/copy.pcap
tolerances: rate=10%,latency=20ms,size=10%,bundling=20%,ratio=20%,share=5pp
0 outside tolerance, 0 accepted by the baseline, 0 within tolerance

opcode parity (reference: ../../testdata/captures/openbc-session-3.pcap):
dir  opcode  name              presence  old count  new count  old /s  new /s
c2s  0x03    ObjCreateTeam     both      3          3          0.047   0.047
c2s  0x07    StartFiring       both      34         34         0.529   0.529
c2s  0x08    StopFiring        both      34         34         0.529   0.529
c2s  0x0A    SubsysStatus      both      50         50         0.778   0.778
c2s  0x0E    StartCloak        both      2          2          0.031   0.031
c2s  0x0F    StopCloak         both      2          2          0.031   0.031
c2s  0x19    TorpedoFire       both      16         16         0.249   0.249
c2s  0x1A    BeamFire          both      34         34         0.529   0.529
c2s  0x1C    StateUpdate       both      1800       1800       27.997  27.997
c2s  0x21    ChecksumResp      both      15         15         0       0
c2s  0x29    Explosion         both      50         50         0.778   0.778
c2s  0x2A    NewPlayerInGame   both      3          3          0.047   0.047
s2c  0x00    Settings          both      3          3          0       0
s2c  0x01    GameInit          both      3          3          0       0
s2c  0x03    ObjCreateTeam     both      6          6          0.093   0.093
s2c  0x07    StartFiring       both      68         68         1.058   1.058
s2c  0x08    StopFiring        both      68         68         1.058   1.058
s2c  0x0A    SubsysStatus      both      100        100        1.555   1.555
s2c  0x0E    StartCloak        both      4          4          0.062   0.062
s2c  0x0F    StopCloak         both      4          4          0.062   0.062
s2c  0x17    DeletePlayerUI    both      12         12         0.187   0.187
s2c  0x18    DeletePlayerAnim  both      3          3          0.047   0.047
s2c  0x19    TorpedoFire       both      32         32         0.498   0.498
s2c  0x1A    BeamFire          both      68         68         1.058   1.058
s2c  0x1C    StateUpdate       both      3600       3600       55.995  55.995
s2c  0x20    ChecksumReq       both      15         15         0       0
s2c  0x28    ChecksumComplete  both      3          3          0       0
s2c  0x29    Explosion         both      100        100        1.555   1.555
s2c  0x2A    NewPlayerInGame   both      3          3          0.047   0.047
s2c  0x35    MissionInit       both      3          3          0.047   0.047
s2c  0x37    Score             both      6          6          0       0
0 opcodes only in the reference (../../testdata/captures/openbc-session-3.pcap), 0 only in the other (TMPDIR/copy.pcap)
