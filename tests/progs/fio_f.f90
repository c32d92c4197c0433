! fio_f: Fortran unit I/O (formatted and stream), which reaches the file
! system through libgfortran: traced only when libgfortran is linked
! statically (-static-libgfortran), see 83-fortran.sh.
program fio_f
  implicit none
  include 'mpif.h'
  integer :: ierr, i
  call MPI_Init(ierr)
  open(unit=10, file='fio.txt', status='replace', action='write')
  do i = 1, 3
    write(10, '(a,i0)') 'line ', i
  end do
  close(10)
  open(unit=11, file='fio.bin', access='stream', form='unformatted', status='replace')
  write(11) (dble(i), i = 1, 100)
  close(11)
  call MPI_Finalize(ierr)
end program
